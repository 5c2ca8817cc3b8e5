import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastUserText, startFakeOpenAI, type FakeOpenAI, type FakeStep } from '../fakes/fake-openai.js';
import { FakeSlack } from '../fakes/fake-slack.js';
import { waitFor } from '../fakes/wait-for.js';
import { stdioFixtureArgs } from '../support/errand-entry.js';
import { useTestDatabase } from '../support/test-database.js';
import { databaseQuery, outputsOf, startSlackCluster, type ClusterProcess } from './kits/scaleout-kit.js';

/**
 * Issue 22 item 7, between real processes: two Errand processes (the `npm start` entry, configured by the
 * environment and errand.json only) share one PostgreSQL database behind the fake Slack in HTTP mode. The
 * process executing a run is frozen (SIGSTOP: its event loop runs nothing) for longer than the lease while
 * its model call is answered; the other process takes the run over and answers. Once the frozen process
 * resumes (SIGCONT) with the stale model answer in hand, every write it tries for that run is refused by the
 * fence (owner and lease generation), so it posts nothing, calls no MCP tool and asks the model nothing more.
 * Nothing is timed: every wait is for something to happen.
 */

const LEASE_SECONDS = 5;
const ALICE = 'U0ALICE01';
const TEAM = 'T0FAKE01';
const CHANNEL = 'C0FENCE001';
const STALE = 'The stale answer';
const FRESH = 'The fresh answer.';
const db = useTestDatabase();
const query = databaseQuery(db);

const runsIn = (channel: string) =>
  query<{ id: string; status: string; owner: string | null }>(
    `select id, status, owner from runs where conversation_id like $1 order by started_at`,
    [`slack:${TEAM}:${channel}:%`],
  );

describe.skipIf(db.skip)('a process frozen past its lease on one PostgreSQL database with another', () => {
  let slack: FakeSlack;
  let model: FakeOpenAI;
  let dir: string;
  let eventsPath: string;
  let processes: ClusterProcess[] = [];
  const releases: (() => void)[] = [];
  const outputs = () => outputsOf(processes);
  /** What the MCP fixture servers of both processes recorded ("wrote plan=…" for every write_note call). */
  const mcpEvents = () => {
    try {
      return readFileSync(eventsPath, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'errand-fencing-'));
    eventsPath = join(dir, 'mcp-events.log');
    // A writing MCP tool that needs no approval: a stale owner calling it would change the world twice.
    const configPath = join(dir, 'errand.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        mcpServers: {
          notes: {
            command: process.execPath,
            args: stdioFixtureArgs(),
            env: { MCP_FIXTURE_EVENTS: eventsPath },
            approval: 'never',
          },
        },
      }),
    );
    slack = await FakeSlack.start({ rateLimit: null });
    model = await startFakeOpenAI();
    processes = await startSlackCluster({
      ids: ['fence-1', 'fence-2'],
      slack,
      model,
      db,
      dir,
      env: { ERRAND_CONFIG: configPath, RUN_LEASE_SECONDS: String(LEASE_SECONDS), LOG_LEVEL: 'info' },
    });
  }, 120_000);

  afterAll(async () => {
    for (const release of releases) release();
    for (const p of processes) if (p.errand.child.exitCode === null) p.errand.child.kill('SIGCONT');
    await Promise.all(processes.map((p) => p.errand.kill()));
    await slack?.close();
    await model?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the frozen owner resumes with a stale answer: nothing of it is recorded or posted, and no tool or model is called again', async () => {
    let slowCalls = 0;
    model.respondWith((request): FakeStep => {
      if (!lastUserText(request).includes('the slow one')) return { text: 'ok' };
      slowCalls++;
      if (slowCalls > 1) return { text: FRESH };
      // The first owner's answer, held until that owner is frozen and its run has been answered elsewhere.
      const gate = new Promise<void>((resolve) => releases.push(resolve));
      return {
        text: `${STALE}, and a note about it.`,
        toolCalls: [{ name: 'notes__write_note', arguments: { key: 'plan', text: 'stale' } }],
        gate,
      };
    });
    const { ts } = await slack.mention({ user: ALICE, channel: CHANNEL, text: 'the slow one', order: 'together' });
    const first = (await waitFor(
      async () => {
        const rows = await runsIn(CHANNEL);
        return rows.length === 1 && rows[0]!.status === 'running' && rows[0]!.owner !== null && slowCalls === 1
          ? rows[0]!
          : undefined;
      },
      30_000,
      'the slow run to be running and waiting on the model',
    ))!;
    const frozen = processes.find((p) => p.id === first.owner)!;
    expect(frozen, `run owner ${first.owner}`).toBeDefined();

    // Frozen for longer than the lease: the other process takes the run over and answers.
    frozen.errand.child.kill('SIGSTOP');
    try {
      await waitFor(
        () => slack.botTexts(CHANNEL, ts).includes(FRESH),
        60_000,
        `the answer from the other process\n${outputs()}`,
      );
      await waitFor(
        async () => (await runsIn(CHANNEL)).every((r) => r.status !== 'running'),
        30_000,
        'the new run to finish',
      );
      // The stale answer reaches the frozen process's socket while it is stopped: it has it the moment it resumes.
      for (const release of releases.splice(0)) release();
      // Streamed without pauses: once its first chunk is written, all of it is.
      await waitFor(
        () => (model.requests.find((r) => lastUserText(r).includes('the slow one'))?.chunksSent ?? 0) > 0,
        30_000,
        'the stale answer to be sent',
      );
    } finally {
      frozen.errand.child.kill('SIGCONT');
    }

    // The resumed process finds out the run is no longer its own (a refused write, or its lease renewal) and its loop
    // for the run ends; after that it can do nothing more for the run. (Without fencing, its stale step gets recorded.)
    const runId = first.id;
    const staleSteps = () =>
      query<{ content: string | null }>(`select content from messages where run_id = $1 and role = 'assistant'`, [
        runId,
      ]);
    await waitFor(
      async () =>
        frozen.errand
          .output()
          .split('\n')
          .some((line) => line.includes(runId) && line.includes('stopped working on a run owned elsewhere now')) ||
        (await staleSteps()).length > 0,
      30_000,
      `the resumed process to give the run up\n${outputs()}`,
    );
    // What was recorded is posted by then.
    await waitFor(
      async () => (await query(`select id from outbox where status = 'pending'`)).length === 0,
      30_000,
      'the outbox to drain',
    );

    const texts = slack.botTexts(CHANNEL, ts);
    expect(
      texts.filter((t) => t === FRESH),
      JSON.stringify(texts),
    ).toHaveLength(1);
    const staleCalls = slack.calls.filter((c) => JSON.stringify(c.args).includes(STALE));
    expect(
      staleCalls.map((c) => c.method),
      'nothing of the stale answer reached Slack, not even a preview',
    ).toEqual([]);
    expect(mcpEvents(), 'the stale owner called no MCP tool').toEqual([]);
    expect(
      model.requests.filter((r) => lastUserText(r).includes('the slow one')),
      'one model call per owner',
    ).toHaveLength(2);
    expect(await staleSteps(), 'the stale step is not in the transcript').toEqual([]);
    const runs = await runsIn(CHANNEL);
    expect(
      runs.map((r) => r.status),
      JSON.stringify(runs),
    ).toEqual(['interrupted', 'completed']);
    expect(runs[1]!.owner, 'the run was answered by the other process').not.toBe(frozen.id);
  }, 180_000);
});
