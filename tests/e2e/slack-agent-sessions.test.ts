import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import type { FakeSlack } from '../fakes/fake-slack.js';
import { waitFor } from '../fakes/wait-for.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { startRestartableSlackErrand, type RestartableSlackErrand } from './slack-restart-harness.js';

/*
 * Slack's agent experience (DESIGN.md "Slack's agent experience (Agent Sessions)"), end to end through Bolt against the
 * fake Slack, which checks the new methods like Slack (the status enum, required arguments, thread roots, known
 * sessions) and stops the listed streams itself when a person presses its Stop.
 */

const CHANNEL = 'C0GENERAL';
const DM = 'D0ALICE01';
const ALICE = 'U0ALICE01';
const BOB = 'U0BOB0001';
const ADMIN = 'U0ADMIN01';
const LONG = 'This answer is long and slow to arrive. '.repeat(40);

let e: RestartableSlackErrand | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
});

/** Calls of the new methods Slack refused (none expected while the app is an agent). */
const sessionErrors = (s: FakeSlack) =>
  s.calls
    .filter((c) => (c.method.startsWith('agents.') || c.method === 'chat.stopStream') && c.error !== null)
    .map((c) => `${c.method}: ${c.error}`);

/** The status of the thread's (only) to-do, read from the database: `in_progress` while its run works, `cancelled` once stopped. */
async function taskStatus(
  app: ReturnType<RestartableSlackErrand['app']>,
  threadTs: string,
): Promise<string | undefined> {
  return (await app.tasks.list(`slack:${e!.slack.teamId}:${CHANNEL}:${threadTs}`)).at(-1)?.status;
}

describe.each(['http', 'socket'] as const)("Slack's agent sessions in %s mode", (mode) => {
  it('a run goes processing → suspended while its question waits → processing → active, titled and owned by the person who asked', async () => {
    e = await startRestartableSlackErrand({ mode });
    const { slack: s, model } = e;
    model.reply(
      { toolCalls: [{ name: 'ask_user', arguments: { question: 'Which day?' } }] },
      { text: 'Friday it is.' },
    );
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'Plan the release\nwith a checklist' });
    await waitFor(() => s.botTexts(CHANNEL, ts).some((t) => t.includes('Which day?')), 10_000, 'the question');
    await waitFor(() => s.agentSession(CHANNEL, ts)?.status === 'suspended', 5000, 'the session to be suspended');
    expect(s.agentSession(CHANNEL, ts)).toMatchObject({ title: 'Plan the release', initiator: ALICE });

    await s.userMessage({ user: ALICE, channel: CHANNEL, threadTs: ts, text: 'Friday' });
    await waitFor(() => s.botTexts(CHANNEL, ts).includes('Friday it is.'), 10_000, 'the answer');
    await e.app().coordinator.idle();
    await waitFor(() => s.agentSession(CHANNEL, ts)?.status === 'active', 5000, 'the session to be active');
    expect(s.sessionStatuses(CHANNEL, ts)).toEqual(['processing', 'suspended', 'processing', 'active']);
    // The answer's stream ended leaving the session as Errand last said, never Slack's default in between.
    expect(s.callsOf('chat.stopStream').every((c) => c.args.session_status !== undefined)).toBe(true);
    expect(s.callsOf('agents.sessions.rename')).toEqual([]);
    expect(sessionErrors(s)).toEqual([]);
  });

  it("Slack's Stop from the person who asked stops the run at once: the model request is cut, the stream Slack stopped is left alone, the thread is told, the session is active", async () => {
    e = await startRestartableSlackErrand({ mode, tuning: { streamIntervalMs: 50 } });
    const { slack: s, model } = e;
    model.streamPace({ chunkChars: 3, chunkDelayMs: 30 });
    model.reply({ text: LONG });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'write slowly' });
    await waitFor(() => s.callsOf('chat.appendStream').length > 0, 20_000, 'the stream to be under way');

    const pressed = Date.now();
    const { streams } = await s.stopAgentSession({ user: ALICE, channel: CHANNEL, threadTs: ts });
    expect(streams).toHaveLength(1);
    await waitFor(() => model.requests[0]!.aborted, 5000, 'the model request to be cut');
    await waitFor(async () => (await taskStatus(e!.app(), ts)) === 'cancelled', 5000, 'the run to be cancelled');
    const tookMs = Date.now() - pressed;
    await waitFor(
      () => s.botTexts(CHANNEL, ts).some((t) => t.startsWith('⏹️ Stopped') && t.includes(`<@${ALICE}>`)),
      5000,
      'the thread to be told',
    );
    await waitFor(() => s.agentSession(CHANNEL, ts)?.status === 'active', 5000, 'the session to be active');
    await e.app().coordinator.idle();
    await s.settle();
    console.info(`slack session stop (${mode}): run cancelled and model request cut ${tookMs} ms after Slack's Stop`);
    // Slack stopped the stream itself: Errand makes no call that fails on it (an append already on its way when the
    // person pressed Stop reached Slack before it, and was taken), and posts no half answer again.
    expect(s.calls.filter((c) => c.args.ts === streams[0] && c.at >= pressed && c.error !== null)).toEqual([]);
    expect(s.messages(CHANNEL, ts).find((m) => m.ts === streams[0])?.text).toMatch(/^This/);
    expect(s.botTexts(CHANNEL, ts).filter((t) => t.startsWith('This'))).toHaveLength(1);
    expect(sessionErrors(s)).toEqual([]);
  });
});

describe("Slack's agent sessions: who may stop, what is left, and workspaces without them", () => {
  it("someone else's Stop changes nothing: they are told privately, the run goes on and answers; an admin's Stop stops it", async () => {
    e = await startRestartableSlackErrand({
      env: errandFileEnv({ access: { admins: [`slack:${ADMIN}`] } }),
      tuning: { streamIntervalMs: 50 },
    });
    const { slack: s, model } = e;
    model.streamPace({ chunkChars: 40, chunkDelayMs: 40 });
    model.reply({ text: LONG });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'write slowly' });
    await waitFor(() => s.callsOf('chat.appendStream').length > 0, 20_000, 'the stream to be under way');
    await s.stopAgentSession({ user: BOB, channel: CHANNEL, threadTs: ts });
    await waitFor(
      () => s.ephemerals.some((n) => n.user === BOB && n.text.includes('Only the person who asked')),
      5000,
      'Bob to be told',
    );
    expect(await taskStatus(e.app(), ts)).toBe('in_progress');
    expect(s.agentSession(CHANNEL, ts)?.status).toBe('processing');

    // The answer still arrives whole (below what the stopped stream showed), and then the session is active.
    await waitFor(() => s.botTexts(CHANNEL, ts).some((t) => t.trim() === LONG.trim()), 20_000, 'the whole answer');
    await e.app().coordinator.idle();
    await waitFor(() => s.agentSession(CHANNEL, ts)?.status === 'active', 5000, 'the session to be active');
    expect(await taskStatus(e.app(), ts)).toBe('completed');
    expect(s.botTexts(CHANNEL, ts).some((t) => t.includes('Stopped'))).toBe(false);

    model.reply({ text: LONG });
    const second = await s.mention({ user: ALICE, channel: CHANNEL, text: 'once more, slowly' });
    await waitFor(
      () =>
        s.agentSession(CHANNEL, second.ts)?.status === 'processing' &&
        s.callsOf('chat.appendStream').some((c) => s.messages(CHANNEL, second.ts).some((m) => m.ts === c.args.ts)),
      20_000,
      'the second stream',
    );
    await s.stopAgentSession({ user: ADMIN, channel: CHANNEL, threadTs: second.ts });
    await waitFor(async () => (await taskStatus(e!.app(), second.ts)) === 'cancelled', 5000, 'the admin to stop it');
    await waitFor(() => s.agentSession(CHANNEL, second.ts)?.status === 'active', 5000, 'the session to be active');
  }, 60_000);

  it('a run stopped while it waits for an answer (no process executes it) leaves its session active, not suspended', async () => {
    e = await startRestartableSlackErrand();
    const { slack: s, model } = e;
    model.reply({ toolCalls: [{ name: 'ask_user', arguments: { question: 'Which day?' } }] });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'plan something' });
    await waitFor(
      () =>
        s.agentSession(CHANNEL, ts)?.status === 'suspended' &&
        s.botTexts(CHANNEL, ts).some((t) => t.includes('Which day?')),
      10_000,
      'the question',
    );
    await e.app().coordinator.idle();
    await s.userMessage({ user: ALICE, channel: CHANNEL, threadTs: ts, text: 'stop' });
    await waitFor(() => s.agentSession(CHANNEL, ts)?.status === 'active', 5000, 'the session to be active');
    expect(s.sessionStatuses(CHANNEL, ts)).toEqual(['processing', 'suspended', 'active']);
    expect(await taskStatus(e.app(), ts)).toBe('cancelled');
  });

  it('a Stop on a session no run holds any more (left processing by a process that died) shows it active', async () => {
    e = await startRestartableSlackErrand();
    const { slack: s, model } = e;
    model.reply({ text: 'Done.' });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'quick one' });
    await waitFor(() => s.botTexts(CHANNEL, ts).includes('Done.'), 10_000, 'the answer');
    await e.app().coordinator.idle();
    await waitFor(() => s.agentSession(CHANNEL, ts)?.status === 'active', 5000, 'the session to be active');
    // As if a process had died with the session showing it at work and nothing recovered it.
    s.agentSession(CHANNEL, ts)!.status = 'processing';
    await s.stopAgentSession({ user: ALICE, channel: CHANNEL, threadTs: ts });
    await waitFor(() => s.agentSession(CHANNEL, ts)?.status === 'active', 5000, 'the session to be active again');
    expect(s.botTexts(CHANNEL, ts).some((t) => t.includes('Stopped'))).toBe(false);
  });

  it('a run interrupted by restarts until its task is given up leaves its session active, set by the recovery', async () => {
    e = await startRestartableSlackErrand();
    const { slack: s, model } = e;
    model.respondWith(() => ({ hang: true }));
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'never finishes' });
    for (let attempt = 1; attempt <= 3; attempt++) {
      await waitFor(
        () => model.hanging() === 1 && s.agentSession(CHANNEL, ts)?.status === 'processing',
        10_000,
        `attempt ${attempt} at work`,
      );
      // The process goes away in the middle of the run (its rows stay `running`): the session still shows it at work.
      await e.stop();
      expect(s.agentSession(CHANNEL, ts)?.status).toBe('processing');
      await e.start();
    }
    await waitFor(
      () => s.botTexts(CHANNEL, ts).some((t) => t.includes('I gave up')),
      10_000,
      'the task to be given up',
    );
    await waitFor(
      () => s.agentSession(CHANNEL, ts)?.status === 'active',
      5000,
      'the recovery to show the session active',
    );
  });

  it('in a workspace where the app is not an agent, runs go on as today and Errand says so in exactly one log line', async () => {
    const lines: string[] = [];
    const logger = createLogger(
      'info',
      new Writable({ write: (c: Buffer, _e, cb) => (lines.push(c.toString('utf8')), cb()) }),
    );
    e = await startRestartableSlackErrand({ logger });
    const { slack: s, model } = e;
    s.notAnAgent('unknown_method');
    model.respondWith(() => ({ text: 'As today.' }));
    for (const text of ['first request', 'second request']) {
      const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text });
      await waitFor(() => s.botTexts(CHANNEL, ts).includes('As today.'), 10_000, 'the answer');
      await e.app().coordinator.idle();
    }
    const { threadTs } = await s.assistantThreadStarted({ user: ALICE, channel: DM });
    await s.userMessage({ user: ALICE, channel: DM, threadTs, text: 'and here' });
    await waitFor(() => s.botTexts(DM, threadTs).includes('As today.'), 10_000, 'the answer in the assistant thread');
    await e.app().coordinator.idle();
    await waitFor(() => s.assistantStatuses(DM, threadTs).at(-1) === '', 5000, 'the status line to be cleared');

    // One refused call, then none: no session anywhere, streams end as before, the status line stays.
    expect(s.callsOf('agents.sessions.setStatus')).toHaveLength(1);
    expect(s.callsOf('chat.stopStream').filter((c) => c.args.session_status !== undefined)).toEqual([]);
    expect(s.agentSessions.size).toBe(0);
    expect(s.assistantStatuses(DM, threadTs)).toContain('is thinking…');
    const said = lines.map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(said.filter((l) => /not an agent/.test(l.msg))).toHaveLength(1);
    expect(said.filter((l) => l.level >= 50)).toEqual([]);
  });
});
