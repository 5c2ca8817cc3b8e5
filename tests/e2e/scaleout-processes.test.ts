import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_DISCORD_TOKEN, startFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';
import { startFakeOpenAI, type FakeOpenAI, type FakeStep, type RecordedRequest } from '../fakes/fake-openai.js';
import { FakeSlack } from '../fakes/fake-slack.js';
import { waitFor } from '../fakes/wait-for.js';
import { freePort } from '../support/free-port.js';
import { useTestDatabase } from '../support/test-database.js';
import { startErrandProcess, type ErrandProcess } from './errand-process.js';

/**
 * Issue 15, measured end to end: three real Errand processes (the `npm start` entry, configured by the
 * environment only) share one PostgreSQL database behind the fake Slack in HTTP mode, with events spread
 * round-robin over their receivers the way a load balancer would — so a mention's `app_mention` and
 * `message` twins usually land on different processes. Nothing is timed: every wait is generous.
 */

const PROCESSES = 3;
const MENTIONS = 200;
const LEASE_SECONDS = 5;
const ALICE = 'U0ALICE01';
const db = useTestDatabase();

const channelOf = (n: number) => `C0SCALE${String(n).padStart(3, '0')}`;
const answerOf = (n: number) => `Answer ${n}.`;
/** How the Slack adapter's "Working…" notice (shown while a run takes long) begins. */
const WORKING_NOTICE = '⏳ Working…';

/** The text of the last person's message the model was sent. */
function lastUserText(request: RecordedRequest): string {
  const user = [...request.messages].reverse().find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
}

/** Resolves once something accepts TCP connections on the port (the process's Slack receiver is up). */
async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** With SCALEOUT_LOG_DIR set, everything each process printed is written there (`<suite>-<process id>.log`). */
function keepLogs(suite: string, processes: readonly { id: string; errand: ErrandProcess }[]): void {
  const dir = process.env.SCALEOUT_LOG_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  for (const p of processes) writeFileSync(join(dir, `${suite}-${p.id}.log`), p.errand.output());
}

/** What each process logged about `needle` (a channel id), for a failure message. */
function logsAbout(processes: readonly { id: string; errand: ErrandProcess }[], needle: string): string {
  return processes.map((p) => `${p.id}:\n${p.errand.output().split('\n').filter((line) => line.includes(needle)).join('\n')}`).join('\n');
}

async function query<T extends pg.QueryResultRow>(text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

/** Waits until no run is `running` any more; on timeout says which runs still are, and what the processes printed. */
async function noRunLeftWorking(outputs: () => string): Promise<void> {
  const running = () => query<{ id: string; owner: string | null; lease_until: string | null; steps: number; updated_at: string }>(`select id, owner, lease_until, steps, updated_at from runs where status = 'running'`);
  // A run taken over from a killed process is recovered into a task queued again: between the two, no run
  // is running but the work is not done, so open tasks count as work left too.
  const open = () => query<{ id: number; status: string }>(`select id, status from tasks where status in ('pending', 'in_progress')`);
  try {
    await waitFor(async () => (await running()).length === 0 && (await open()).length === 0, 30_000, 'no run left working');
  } catch {
    throw new Error(`runs still running: ${JSON.stringify(await running())}, tasks open: ${JSON.stringify(await open())} at ${Date.now()}\n${outputs()}`);
  }
}

describe.skipIf(db.skip)('three Errand processes on one PostgreSQL database behind a round-robin Slack', () => {
  let slack: FakeSlack;
  let model: FakeOpenAI;
  let dir: string;
  const processes: { id: string; errand: ErrandProcess }[] = [];
  /** Held slow answers: released at the end so nothing is left hanging. */
  const releases: (() => void)[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'errand-scaleout-'));
    slack = await FakeSlack.start({ rateLimit: null });
    model = await startFakeOpenAI();
    const ports = await Promise.all(Array.from({ length: PROCESSES }, () => freePort()));
    for (const [i, port] of ports.entries()) {
      const id = `errand-${i + 1}`;
      const errand = startErrandProcess({
        SLACK_BOT_TOKEN: 'xoxb-scaleout-test',
        SLACK_SIGNING_SECRET: slack.signingSecret,
        SLACK_MODE: 'http',
        SLACK_PORT: String(port),
        SLACK_API_URL: slack.apiUrl,
        OPENAI_BASE_URL: model.baseUrl,
        OPENAI_API_KEY: 'test-key',
        DATABASE_URL: db.url,
        DATABASE_PATH: join(dir, `unused-${i + 1}.db`),
        ERRAND_PROCESS_ID: id,
        RUN_LEASE_SECONDS: String(LEASE_SECONDS),
        LOG_LEVEL: process.env.SCALEOUT_LOG_LEVEL ?? 'warn',
      });
      processes.push({ id, errand });
    }
    for (const [i, port] of ports.entries()) {
      const { errand } = processes[i]!;
      await waitFor(async () => {
        if (errand.child.exitCode !== null) throw new Error(`errand-${i + 1} exited at start:\n${errand.output()}`);
        return listening(port);
      }, 90_000, `errand-${i + 1} to listen on ${port}`);
    }
    slack.useHttpReceivers(ports.map((p) => `http://127.0.0.1:${p}/slack/events`));
  }, 120_000);

  afterAll(async () => {
    for (const release of releases) release();
    await Promise.all(processes.map((p) => p.errand.kill()));
    keepLogs('slack', processes);
    await slack?.close();
    await model?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers each of 200 mentions in distinct channels exactly once, whichever process each event reached', async () => {
    model.respondWith((request): FakeStep => {
      const n = /question (\d+)/.exec(lastUserText(request))?.[1];
      return { text: n === undefined ? 'ok' : answerOf(Number(n)) };
    });
    const mentions = await Promise.all(Array.from({ length: MENTIONS }, (_, n) => slack.mention({ user: ALICE, channel: channelOf(n), text: `question ${n}`, order: 'together' })));
    await waitFor(() => mentions.every(({ ts }, n) => slack.botTexts(channelOf(n), ts).includes(answerOf(n))), 60_000, 'every mention to be answered');
    // Let anything that could still double an answer (a second run, a re-sent post) finish before counting.
    await noRunLeftWorking(() => processes.map((p) => `${p.id}:\n${p.errand.output()}`).join('\n'));
    // A run that took a while showed a "Working…" notice; its process takes it down just after the run ended.
    await waitFor(() => mentions.every(({ ts }, n) => !slack.botTexts(channelOf(n), ts).some((t) => t.startsWith(WORKING_NOTICE))), 30_000, 'every working notice taken down');

    for (const [n, { ts }] of mentions.entries()) {
      // 24 slots for 200 mentions: a mention that waits for one is told so, once, before its answer.
      const texts = slack.botTexts(channelOf(n), ts);
      const queued = texts.filter((t) => t.startsWith('📝 Queued as task'));
      const calls = model.requests.filter((r) => new RegExp(`question ${n}(?!\\d)`).test(lastUserText(r)));
      const thread = () =>
        `thread of question ${n}: ${JSON.stringify(texts)}; model calls ${calls.length}\n` +
        `Slack calls: ${JSON.stringify(slack.calls.filter((c) => c.args.channel === channelOf(n)).map((c) => ({ method: c.method, ts: c.args.ts, text: String(c.args.text ?? '').slice(0, 30), at: c.at, error: c.error })))}\n` +
        logsAbout(processes, channelOf(n));
      if (queued.length > 1 || texts.length - queued.length !== 1 || calls.length !== 1) throw new Error(thread());
      expect(texts.filter((t) => !queued.includes(t)), thread()).toEqual([answerOf(n)]);
    }
    const owners = await query<{ owner: string | null }>(`select distinct owner from runs`);
    const processIds = new Set(processes.map((p) => p.id));
    expect(owners.filter((o) => o.owner !== null && processIds.has(o.owner)).length, 'runs were spread over more than one process').toBeGreaterThan(1);
  }, 120_000);

  it('a SIGKILLed process loses its slow run to another within the lease: the thread gets the restart note and the answer once', async () => {
    let slowCalls = 0;
    model.respondWith((request): FakeStep => {
      if (!lastUserText(request).includes('the slow one')) return { text: 'ok' };
      slowCalls++;
      if (slowCalls > 1) return { text: 'The slow answer.' };
      return { text: 'The slow answer (never sent: its process dies first).', gate: new Promise<void>((resolve) => releases.push(resolve)) };
    });
    const channel = 'C0SLOW0001';
    const { ts } = await slack.mention({ user: ALICE, channel, text: 'the slow one', order: 'together' });
    const owner = await waitFor(async () => {
      const rows = await query<{ owner: string | null }>(`select owner from runs where status = 'running'`);
      return rows.length === 1 && slowCalls === 1 ? rows[0]!.owner : null;
    }, 30_000, 'the slow run to be running and waiting on the model');
    const victim = processes.find((p) => p.id === owner);
    expect(victim, `run owner ${owner}`).toBeDefined();
    await victim!.errand.kill();

    await waitFor(() => slack.botTexts(channel, ts).includes('The slow answer.'), 45_000, 'the answer from a surviving process');
    await noRunLeftWorking(() => processes.map((p) => `${p.id}:\n${p.errand.output()}`).join('\n'));
    const texts = slack.botTexts(channel, ts);
    expect(texts.filter((t) => t.includes('I was restarted while working')), JSON.stringify(texts)).toHaveLength(1);
    expect(texts.filter((t) => t === 'The slow answer.'), JSON.stringify(texts)).toHaveLength(1);
    expect(texts.some((t) => t.includes('never sent')), JSON.stringify(texts)).toBe(false);
    const last = await query<{ owner: string | null }>(`select owner from runs where status = 'completed' order by ended_at desc limit 1`);
    expect(last[0]?.owner, 'the process that finished the slow run').not.toBe(owner);
  }, 120_000);
});

/** The process holding the Discord gateway lock on this test's database (its lock connection's name), or null. */
async function gatewayHolder(): Promise<string | null> {
  const rows = await query<{ name: string }>(
    `select a.application_name as name from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'advisory' and l.granted and a.datname = current_database() and a.application_name like 'errand-gateway:%'`,
  );
  if (rows.length > 1) throw new Error(`more than one gateway holder: ${JSON.stringify(rows)}`);
  return rows[0]?.name.slice('errand-gateway:'.length) ?? null;
}

describe.skipIf(db.skip)('three Errand processes on one PostgreSQL database on Discord', () => {
  let discord: FakeDiscord;
  let model: FakeOpenAI;
  let dir: string;
  const processes: { id: string; errand: ErrandProcess }[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'errand-scaleout-discord-'));
    discord = await startFakeDiscord();
    model = await startFakeOpenAI();
    for (let i = 1; i <= PROCESSES; i++) {
      const id = `discord-${i}`;
      const errand = startErrandProcess({
        DISCORD_TOKEN: FAKE_DISCORD_TOKEN,
        DISCORD_API_URL: discord.apiUrl,
        DISCORD_GUILD_ID: discord.guildId,
        OPENAI_BASE_URL: model.baseUrl,
        OPENAI_API_KEY: 'test-key',
        DATABASE_URL: db.url,
        DATABASE_PATH: join(dir, `unused-${i}.db`),
        ERRAND_PROCESS_ID: id,
        RUN_LEASE_SECONDS: String(LEASE_SECONDS),
        GATEWAY_LOCK_RETRY_SECONDS: '1',
      });
      processes.push({ id, errand });
    }
    await waitFor(async () => {
      const dead = processes.find((p) => p.errand.child.exitCode !== null);
      if (dead) throw new Error(`${dead.id} exited at start:\n${dead.errand.output()}`);
      return discord.stats.identifies > 0 && (await gatewayHolder()) !== null;
    }, 90_000, 'one process to hold the gateway and connect');
  }, 120_000);

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.errand.kill()));
    keepLogs('discord', processes);
    await discord?.close();
    await model?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the gateway moves to a survivor when its holder is SIGKILLed, and a new mention is answered once', async () => {
    model.respondWith((request): FakeStep => ({ text: /second/.test(lastUserText(request)) ? 'Second answer.' : 'First answer.' }));
    const first = discord.userMessage(discord.general.id, `<@${discord.bot.id}> first question`);
    await waitFor(() => discord.botMessagesIn(first.id).some((m) => m.content === 'First answer.'), 30_000, 'the first answer');

    const holder = await gatewayHolder();
    const victim = processes.find((p) => p.id === holder);
    expect(victim, `gateway holder ${holder}`).toBeDefined();
    const connects = discord.stats.identifies + discord.stats.resumes;
    await victim!.errand.kill();
    const survivor = await waitFor(async () => {
      const now = await gatewayHolder();
      return now !== null && now !== holder && discord.stats.identifies + discord.stats.resumes > connects ? now : null;
    }, 45_000, 'a surviving process to take the gateway and connect');
    expect(processes.map((p) => p.id)).toContain(survivor);

    const second = discord.userMessage(discord.general.id, `<@${discord.bot.id}> second question`);
    await waitFor(() => discord.botMessagesIn(second.id).some((m) => m.content === 'Second answer.'), 30_000, 'the answer after the move');
    await noRunLeftWorking(() => processes.map((p) => `${p.id}:\n${p.errand.output()}`).join('\n'));
    const texts = discord.botMessagesIn(second.id).map((m) => m.content);
    expect(texts.filter((t) => t === 'Second answer.'), JSON.stringify(texts)).toHaveLength(1);
    const firstTexts = discord.botMessagesIn(first.id).map((m) => m.content);
    expect(firstTexts.filter((t) => t === 'First answer.'), `after the move: ${JSON.stringify(firstTexts)}; model calls ${model.requests.length}`).toHaveLength(1);
  }, 120_000);
});
