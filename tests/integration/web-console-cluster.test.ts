import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { createPostgresCluster } from '../../src/cluster/cluster-runtime.js';
import { createGatewayLock } from '../../src/cluster/gateway-lock.js';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { advisoryLockKey } from '../../src/db/advisory-lock-key.js';
import { createLogger } from '../../src/logger.js';
import { openStore } from '../../src/composition/open-store.js';
import type { PostgresStore } from '../../src/composition/pg-store.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { MemoryAdapter } from '../fakes/memory-adapter.js';
import { waitFor } from '../fakes/wait-for.js';
import { useTestDatabase } from '../support/test-database.js';

/*
 * Two Errand processes (two apps, each with its own PostgreSQL pool, cluster runtime and web console) on one
 * database: either console shows the whole cluster, and Stop on one stops a run the other executes.
 */

const database = useTestDatabase();
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Proc {
  readonly id: string;
  readonly app: App;
  readonly adapter: MemoryAdapter;
}

async function startProcess(id: string, model: FakeOpenAI, dir: string): Promise<Proc> {
  const config = loadConfig({
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'test-key',
    DATABASE_PATH: join(dir, `${id}.db`),
    DATABASE_URL: database.url,
    ERRAND_PROCESS_ID: id,
    RUN_LEASE_SECONDS: '30',
    ...errandFileEnv({ access: { admins: ['slack:U0ADMIN01'] } }),
  });
  const store = (await openStore(config, systemClock)) as PostgresStore;
  const logger = createLogger('silent');
  const cluster = createPostgresCluster({
    db: store.db,
    url: database.url,
    processId: id,
    clock: systemClock,
    logger,
    leaseMs: 30_000,
  });
  const adapter = new MemoryAdapter('T0ERRAND1', 'slack');
  const app = await createApp({
    config,
    adapters: [adapter],
    store,
    cluster,
    logger,
    webConsole: { port: 0, pollMs: 50 },
    modelBackoffMs: () => 5,
  });
  await app.start();
  cleanups.push(async () => {
    await app.stop();
    await store.close();
  });
  return { id, app, adapter };
}

/** Signs in to a process's console over plain HTTP: the session cookie and a page's CSRF token. */
async function signIn(p: Proc): Promise<{ get(path: string): Promise<string>; post(path: string): Promise<Response> }> {
  const reply = await p.adapter.command(
    'admin',
    '',
    { platform: 'slack', workspace: 'T0ERRAND1', channel: 'C0GENERAL1' },
    null,
    'U0ADMIN01',
  );
  const link = /https?:\/\/\S+/.exec(reply.text)![0];
  const signedIn = await fetch(link, { method: 'POST', redirect: 'manual' });
  const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
  const base = p.app.webConsole.localUrl()!;
  const get = async (path: string) => (await fetch(`${base}${path}`, { headers: { cookie } })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(await get('/admin'))![1]!;
  return {
    get,
    post: (path) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: `csrf=${csrf}`,
      }),
  };
}

describe.skipIf(database.skip)('the web console of processes sharing PostgreSQL', () => {
  it('shows every process and their runs, and stops a run from the console of a process that does not run it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'errand-console-cluster-'));
    const model = await startFakeOpenAI();
    cleanups.push(async () => {
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const a = await startProcess('console-cluster-a', model, dir);
    const b = await startProcess('console-cluster-b', model, dir);

    model.reply({ toolCalls: [{ name: 'send_update', arguments: { text: 'Reading the logs' } }] }, { hang: true });
    const thread = b.adapter.thread('C0INCIDENT1', '1700000100.000200');
    await b.adapter.say(thread, 'Investigate the outage', { userId: 'U0BOB0001' });
    await waitFor(() => model.hanging() === 1);
    const conversationId = 'slack:T0ERRAND1:C0INCIDENT1:1700000100.000200';
    const run = (await b.app.runs.active(conversationId))!;
    const owner = (await b.app.store.consoleQueries.run(run.id))!.owner;
    const runner = owner === a.id ? a : b;
    const other = runner === a ? b : a;

    // An Errand of another database on the same server, holding its own gateway lock, is none of this cluster's.
    const elsewhere = new URL(database.url);
    elsewhere.pathname = '/postgres';
    const stranger = new pg.Client({
      connectionString: elsewhere.toString(),
      application_name: 'errand-wake:stranger',
    });
    await stranger.connect();
    cleanups.push(() => stranger.end());
    const strangerGateway = new pg.Client({
      connectionString: elsewhere.toString(),
      application_name: 'errand-gateway:stranger',
    });
    await strangerGateway.connect();
    cleanups.push(() => strangerGateway.end());
    await strangerGateway.query(`select pg_advisory_lock($1::bigint)`, [String(advisoryLockKey('discord-gateway'))]);

    const web = await signIn(other);
    expect(await web.get('/admin')).toContain('Discord gateway: held by no process');
    const gateway = createGatewayLock({
      url: database.url,
      processId: runner.id,
      clock: systemClock,
      logger: createLogger('silent'),
    });
    cleanups.push(() => gateway.close());
    await gateway.start();
    expect(gateway.held).toBe(true);
    const overview = await web.get('/admin');
    expect(overview).toContain(`Discord gateway: held by <strong>${runner.id}</strong>`);
    expect(overview).toContain('2 Errand processes share the PostgreSQL database');
    for (const p of [a, b]) expect(overview).toContain(p.id);
    expect(overview).toContain(`${other.id} <span class="muted">(serves this page)`);
    expect(await web.get('/admin/runs')).toContain(`<td>${runner.id}</td>`);

    const stopped = await web.post(`/admin/runs/${run.id}/stop`);
    expect(stopped.status).toBe(303);
    expect(decodeURIComponent(stopped.headers.get('location')!)).toContain('Stopped.');
    await waitFor(() => model.requests.some((r) => r.aborted), 10_000, 'the runner to abort its model request');
    expect((await runner.app.runs.get(run.id))?.status).toBe('cancelled');
    await waitFor(
      () => [...a.adapter.posts, ...b.adapter.posts].some((p) => p.text.includes('⏹️ Stopped')),
      10_000,
      'the stop note',
    );
    const audit = await other.app.store.audit.page({ kind: 'change' }, null, 10);
    expect(audit.map((r) => [r.actor, r.runId])).toEqual([['slack:U0ADMIN01', run.id]]);
  });
});
