import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOAuth, type FakeOAuth } from '../fakes/fake-oauth.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { FakeSlack } from '../fakes/fake-slack.js';
import { waitFor } from '../fakes/wait-for.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { freePort } from '../support/free-port.js';
import { useTestDatabase } from '../support/test-database.js';
import { startErrandProcess, type ErrandProcess } from './errand-process.js';
import { listening } from '../support/free-port.js';
import { databaseQuery } from './kits/scaleout-kit.js';
import { toolResults } from './mcp-e2e-kit.js';

/*
 * The sign-in callback lands on another process than the run's: two real Errand processes (the `npm start` entry)
 * share one PostgreSQL database; Slack's events reach the first, the browser's return to /oauth/callback reaches the
 * second (a load balancer in front of WEB_PORT may send it anywhere). The first is killed while its run waits, so
 * only the second can carry the run on.
 */

const ALICE = 'U0ALICE01';
const CHANNEL = 'C0OAUTH001';
const db = useTestDatabase();
const query = databaseQuery(db);

describe.skipIf(db.skip)('per-person OAuth across two Errand processes on one PostgreSQL database', () => {
  let slack: FakeSlack;
  let model: FakeOpenAI;
  let oauth: FakeOAuth;
  let dir: string;
  const processes: { id: string; errand: ErrandProcess; slackPort: number; webPort: number }[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'errand-scaleout-oauth-'));
    slack = await FakeSlack.start({ rateLimit: null });
    model = await startFakeOpenAI();
    oauth = await startFakeOAuth();
    const publicUrl = `http://127.0.0.1:${await freePort()}`;
    const shared = {
      SLACK_BOT_TOKEN: 'xoxb-scaleout-test',
      SLACK_SIGNING_SECRET: slack.signingSecret,
      SLACK_MODE: 'http',
      SLACK_API_URL: slack.apiUrl,
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: 'test-key',
      DATABASE_URL: db.url,
      PUBLIC_URL: publicUrl,
      ERRAND_SECRET_KEY: randomBytes(32).toString('base64'),
      RUN_LEASE_SECONDS: '5',
      LOG_LEVEL: 'warn',
      ...errandFileEnv({ mcpServers: { linear: { url: oauth.mcpUrl, auth: 'oauth' } } }),
    };
    for (const id of ['errand-a', 'errand-b']) {
      const [slackPort, webPort] = [await freePort(), await freePort()];
      const errand = startErrandProcess({
        ...shared,
        SLACK_PORT: String(slackPort),
        WEB_PORT: String(webPort),
        ERRAND_PROCESS_ID: id,
        DATABASE_PATH: join(dir, `unused-${id}.db`),
      });
      processes.push({ id, errand, slackPort, webPort });
    }
    for (const p of processes) {
      await waitFor(
        async () => {
          if (p.errand.child.exitCode !== null) throw new Error(`${p.id} exited at start:\n${p.errand.output()}`);
          return (await listening(p.slackPort)) && (await listening(p.webPort));
        },
        90_000,
        `${p.id} to listen`,
      );
    }
    slack.useHttpReceiver(`http://127.0.0.1:${processes[0]!.slackPort}/slack/events`);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.errand.kill()));
    await slack?.close();
    await model?.close();
    await oauth?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("a run waits on process A for Alice's sign-in; A dies; her callback reaches B, which runs the waiting call with her token and shows her the answer privately until she shares it", async () => {
    model.reply(
      { toolCalls: [{ name: 'linear__sign_in', arguments: {} }] },
      { toolCalls: [{ name: 'linear__whoami', arguments: {} }] },
      { text: 'You are ana.' },
    );
    const { ts } = await slack.mention({ user: ALICE, channel: CHANNEL, text: 'what is on my linear board?' });
    const notice = (await waitFor(
      () => slack.ephemerals.find((n) => n.user === ALICE && n.text.includes('connect your account')),
      30_000,
      'the Connect notice',
    ))!;
    const link = notice.text.match(/https?:\/\/[^\s>|]+/)![0].replaceAll('&amp;', '&');
    await waitFor(
      async () => (await query(`select id from runs where status = 'waiting_user'`)).length === 1,
      30_000,
      'the run to wait',
    );
    const [a, b] = processes as [(typeof processes)[0], (typeof processes)[0]];
    await a.errand.kill();

    // The browser comes back through PUBLIC_URL; the load balancer sends it to B's WEB_PORT.
    const back = new URL(await oauth.consent(link, { subject: 'ana' }));
    back.port = String(b.webPort);
    // A busy machine can drop the first connection (seen once in a full run as "fetch failed"): a browser tries again.
    const page = await waitFor(
      () => {
        // B gone: trying again cannot help; say how it ended and what it printed.
        const { exitCode, signalCode } = b.errand.child;
        if (exitCode !== null || signalCode !== null)
          throw new Error(`errand-b exited (${exitCode ?? signalCode}):\n${b.errand.output()}`);
        return fetch(back).catch((err: unknown) => {
          throw new Error(`B's callback page: ${String(err)} (${String((err as Error).cause)})\n${b.errand.output()}`);
        });
      },
      20_000,
      `B's callback page\n${b.errand.output()}`,
    );
    expect(page!.status).toBe(200);
    expect(await page!.text()).toContain('Connected');

    // Built on her own sign-in in a channel thread: B shows it to her alone first, with Share in thread / Keep private.
    const held = (await waitFor(
      () => slack.ephemeralMessages.find((m) => m.user === ALICE && m.text.includes('You are ana.')),
      30_000,
      `the answer from B\n${b.errand.output()}`,
    ))!;
    expect(slack.botTexts(CHANNEL, ts)).not.toContain('You are ana.');
    const share = /"action_id":"(errand:private:share:\d+)"/.exec(JSON.stringify(held.blocks))![1]!;
    slack.useHttpReceiver(`http://127.0.0.1:${b.slackPort}/slack/events`);
    await slack.clickInEphemeral({ user: ALICE, actionId: share });
    await waitFor(
      () => slack.botTexts(CHANNEL, ts).includes('You are ana.'),
      30_000,
      `the shared answer from B\n${b.errand.output()}`,
    );
    expect(toolResults(model.requests[1]!).at(-1)).toEqual(expect.objectContaining({ ok: true, connected: true }));
    expect(toolResults(model.requests[2]!).at(-1)).toEqual({ ok: true, content: 'ana' });
    expect(new Set(oauth.accepted.map((x) => x.subject))).toEqual(new Set(['ana']));
    const runs = () => query<{ status: string; owner: string | null }>(`select status, owner from runs`);
    await waitFor(async () => (await runs())[0]?.status === 'completed', 30_000, 'the run to be recorded completed');
    expect(await runs()).toEqual([{ status: 'completed', owner: 'errand-b' }]);
  }, 120_000);
});
