import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastUserText, startFakeOpenAI, type FakeOpenAI, type FakeStep } from '../fakes/fake-openai.js';
import { FakeSlack } from '../fakes/fake-slack.js';
import { waitFor } from '../fakes/wait-for.js';
import { useTestDatabase } from '../support/test-database.js';
import {
  databaseQuery,
  keepLogs,
  noRunLeftWorking,
  startSlackCluster,
  type ClusterProcess,
} from './kits/scaleout-kit.js';

/**
 * Issue 15, measured end to end: three real Errand processes (the `npm start` entry, configured by the
 * environment only) share one PostgreSQL database behind the fake Slack in HTTP mode, with events spread
 * round-robin over their receivers the way a load balancer would — so a mention's `app_mention` and
 * `message` twins usually land on different processes. Nothing is timed: every wait is generous.
 * (The Discord gateway moving between such processes: scaleout-gateway.test.ts.)
 */

/** Run slots per process: three processes hold 12 runs at once. */
const SLOTS = 4;
/** Over three times the 12 run slots of the three processes: most mentions wait for one. */
const MENTIONS = 40;
const LEASE_SECONDS = 5;
const ALICE = 'U0ALICE01';
const db = useTestDatabase();
const query = databaseQuery(db);

const channelOf = (n: number) => `C0SCALE${String(n).padStart(3, '0')}`;
const answerOf = (n: number) => `Answer ${n}.`;
/** How the Slack adapter's "Working…" notice (shown while a run takes long) begins. */
const WORKING_NOTICE = '⏳ Working…';

/** What each process logged about `needle` (a channel id), for a failure message. */
function logsAbout(processes: readonly ClusterProcess[], needle: string): string {
  return processes
    .map(
      (p) =>
        `${p.id}:\n${p.errand
          .output()
          .split('\n')
          .filter((line) => line.includes(needle))
          .join('\n')}`,
    )
    .join('\n');
}

describe.skipIf(db.skip)('three Errand processes on one PostgreSQL database behind a round-robin Slack', () => {
  let slack: FakeSlack;
  let model: FakeOpenAI;
  let dir: string;
  let processes: ClusterProcess[] = [];
  /** Held slow answers: released at the end so nothing is left hanging. */
  const releases: (() => void)[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'errand-scaleout-'));
    slack = await FakeSlack.start({ rateLimit: null });
    model = await startFakeOpenAI();
    processes = await startSlackCluster({
      ids: ['errand-1', 'errand-2', 'errand-3'],
      slack,
      model,
      db,
      dir,
      env: {
        RUN_LEASE_SECONDS: String(LEASE_SECONDS),
        MAX_CONCURRENT_RUNS: String(SLOTS),
        LOG_LEVEL: process.env.SCALEOUT_LOG_LEVEL ?? 'warn',
      },
    });
  }, 120_000);

  afterAll(async () => {
    for (const release of releases) release();
    await Promise.all(processes.map((p) => p.errand.kill()));
    keepLogs('slack', processes);
    await slack?.close();
    await model?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`answers each of ${MENTIONS} mentions in distinct channels exactly once, whichever process each event reached`, async () => {
    model.respondWith((request): FakeStep => {
      const n = /question (\d+)/.exec(lastUserText(request))?.[1];
      return { text: n === undefined ? 'ok' : answerOf(Number(n)) };
    });
    const mentions = await Promise.all(
      Array.from({ length: MENTIONS }, (_, n) =>
        slack.mention({ user: ALICE, channel: channelOf(n), text: `question ${n}`, order: 'together' }),
      ),
    );
    await waitFor(
      () => mentions.every(({ ts }, n) => slack.botTexts(channelOf(n), ts).includes(answerOf(n))),
      60_000,
      'every mention to be answered',
    );
    // Let anything that could still double an answer (a second run, a re-sent post) finish before counting.
    await noRunLeftWorking(query, processes);
    // A run that took a while showed a "Working…" notice; its process takes it down just after the run ended.
    await waitFor(
      () => mentions.every(({ ts }, n) => !slack.botTexts(channelOf(n), ts).some((t) => t.startsWith(WORKING_NOTICE))),
      30_000,
      'every working notice taken down',
    );

    for (const [n, { ts }] of mentions.entries()) {
      // 12 slots for the mentions: a mention that waits for one is told so, once, before its answer.
      const texts = slack.botTexts(channelOf(n), ts);
      const queued = texts.filter((t) => t.startsWith('📝 Queued as task'));
      const calls = model.requests.filter((r) => new RegExp(`question ${n}(?!\\d)`).test(lastUserText(r)));
      const thread = () =>
        `thread of question ${n}: ${JSON.stringify(texts)}; model calls ${calls.length}\n` +
        `Slack calls: ${JSON.stringify(slack.calls.filter((c) => c.args.channel === channelOf(n)).map((c) => ({ method: c.method, ts: c.args.ts, text: String(c.args.text ?? '').slice(0, 30), at: c.at, error: c.error })))}\n` +
        logsAbout(processes, channelOf(n));
      if (queued.length > 1 || texts.length - queued.length !== 1 || calls.length !== 1) throw new Error(thread());
      expect(
        texts.filter((t) => !queued.includes(t)),
        thread(),
      ).toEqual([answerOf(n)]);
    }
    const owners = await query<{ owner: string | null }>(`select distinct owner from runs`);
    const processIds = new Set(processes.map((p) => p.id));
    expect(
      owners.filter((o) => o.owner !== null && processIds.has(o.owner)).length,
      'runs were spread over more than one process',
    ).toBeGreaterThan(1);
  }, 120_000);

  it('a SIGKILLed process loses its slow run to another within the lease: the thread gets the restart note and the answer once', async () => {
    let slowCalls = 0;
    model.respondWith((request): FakeStep => {
      if (!lastUserText(request).includes('the slow one')) return { text: 'ok' };
      slowCalls++;
      if (slowCalls > 1) return { text: 'The slow answer.' };
      return {
        text: 'The slow answer (never sent: its process dies first).',
        gate: new Promise<void>((resolve) => releases.push(resolve)),
      };
    });
    const channel = 'C0SLOW0001';
    const { ts } = await slack.mention({ user: ALICE, channel, text: 'the slow one', order: 'together' });
    const owner = await waitFor(
      async () => {
        const rows = await query<{ owner: string | null }>(`select owner from runs where status = 'running'`);
        return rows.length === 1 && slowCalls === 1 ? rows[0]!.owner : null;
      },
      30_000,
      'the slow run to be running and waiting on the model',
    );
    const victim = processes.find((p) => p.id === owner);
    expect(victim, `run owner ${owner}`).toBeDefined();
    await victim!.errand.kill();

    await waitFor(
      () => slack.botTexts(channel, ts).includes('The slow answer.'),
      45_000,
      'the answer from a surviving process',
    );
    await noRunLeftWorking(query, processes);
    const texts = slack.botTexts(channel, ts);
    expect(
      texts.filter((t) => t.includes('I was restarted while working')),
      JSON.stringify(texts),
    ).toHaveLength(1);
    expect(
      texts.filter((t) => t === 'The slow answer.'),
      JSON.stringify(texts),
    ).toHaveLength(1);
    expect(
      texts.some((t) => t.includes('never sent')),
      JSON.stringify(texts),
    ).toBe(false);
    const last = await query<{ owner: string | null }>(
      `select owner from runs where status = 'completed' order by ended_at desc limit 1`,
    );
    expect(last[0]?.owner, 'the process that finished the slow run').not.toBe(owner);
  }, 120_000);
});
