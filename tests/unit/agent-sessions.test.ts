import { Writable } from 'node:stream';
import * as webApi from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { createAgentSessions, type AgentSessionStatus } from '../../adapters/slack/agent-sessions.js';
import { callSlack } from '../../adapters/slack/slack-api.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import { createLogger } from '../../src/logger.js';
import { waitFor } from '../fakes/wait-for.js';

const THREAD: ConversationRef = {
  platform: 'slack',
  workspace: 'T0TEAM0001',
  channel: 'C024BE91L',
  thread: '1700000000.000100',
};
const PLACE = { teamId: 'T0TEAM0001', channelId: 'C024BE91L', threadTs: '1700000000.000100' };

/** Slack's error for a refused call, as @slack/web-api throws it. */
const slackError = (code: string): Error => new webApi.WebAPIPlatformError({ ok: false, error: code });

/** A Web API that records each call and answers when the test says so (or at once with `auto`). */
function fakeApi(
  answer: (method: string, args: Record<string, unknown>) => Record<string, unknown> | Error = () => ({ ok: true }),
) {
  const calls: { method: string; args: Record<string, unknown> }[] = [];
  const held: (() => void)[] = [];
  let holding = false;
  const call = <T>(method: string, args: Record<string, unknown>, schema: z.ZodType<T>): Promise<T> =>
    callSlack(
      method,
      async () => {
        calls.push({ method, args });
        if (holding) await new Promise<void>((resolve) => held.push(resolve));
        const a = answer(method, args);
        if (a instanceof Error) throw a;
        return a;
      },
      schema,
    );
  return {
    calls,
    call,
    hold: () => void (holding = true),
    release: () => {
      holding = false;
      for (const r of held.splice(0)) r();
    },
  };
}

function capture() {
  const lines: { level: number; msg: string }[] = [];
  const logger = createLogger(
    'info',
    new Writable({
      write: (c: Buffer, _e, cb) => (
        lines.push(JSON.parse(c.toString('utf8')) as { level: number; msg: string }),
        cb()
      ),
    }),
  );
  return { lines, logger };
}

const statuses = (calls: { method: string; args: Record<string, unknown> }[]) =>
  calls.filter((c) => c.method === 'agents.sessions.setStatus').map((c) => c.args.status as AgentSessionStatus);

describe("Slack's agent sessions of Errand's threads", () => {
  it('sends only changes, in order per thread: a quick run that ends while its start is in flight goes processing then active, never back', async () => {
    const api = fakeApi();
    const sessions = createAgentSessions({ call: api.call, logger: capture().logger });
    api.hold();
    sessions.set(THREAD, { state: 'working', principalUserId: 'U0ALICE01', title: 'Plan the release' });
    await waitFor(() => api.calls.length === 1);
    sessions.set(THREAD, { state: 'waiting' });
    sessions.set(THREAD, { state: 'working' });
    sessions.set(THREAD, { state: 'idle' });
    await new Promise((r) => setTimeout(r, 10));
    expect(api.calls).toHaveLength(1);
    api.release();
    await sessions.stopAll();
    expect(api.calls.map((c) => c.args)).toEqual([
      {
        channel_id: PLACE.channelId,
        thread_ts: PLACE.threadTs,
        status: 'processing',
        title: 'Plan the release',
        initiator_user_id: 'U0ALICE01',
      },
      { channel_id: PLACE.channelId, thread_ts: PLACE.threadTs, status: 'active' },
    ]);
  });

  it("a stream's end carries the status the core last said, in order with the status calls; nothing where no session is shown", async () => {
    const api = fakeApi();
    const sessions = createAgentSessions({ call: api.call, logger: capture().logger });
    expect(await sessions.streamEnd(PLACE, async (status) => status)).toBeNull();
    api.hold();
    sessions.set(THREAD, { state: 'working' });
    await waitFor(() => api.calls.length === 1);
    const ended = sessions.streamEnd(PLACE, async (status) => status);
    sessions.set(THREAD, { state: 'waiting' });
    api.release();
    expect(await ended).toBe('suspended');
    await sessions.stopAll();
    // The stream's end (after the processing in flight) set `suspended` itself: no setStatus repeats it.
    expect(statuses(api.calls)).toEqual(['processing']);
  });

  it('names a session Slack says has no title after the request, and leaves a titled one (or one it says nothing of) alone', async () => {
    const titles: Record<string, string | undefined> = {
      [PLACE.threadTs]: '',
      '1700000000.000200': 'Named by a person',
      '1700000000.000300': undefined,
    };
    const api = fakeApi((method, args) =>
      method === 'agents.sessions.setStatus'
        ? {
            ok: true,
            status: args.status,
            ...(titles[String(args.thread_ts)] !== undefined ? { title: titles[String(args.thread_ts)] } : {}),
          }
        : { ok: true },
    );
    const sessions = createAgentSessions({ call: api.call, logger: capture().logger });
    for (const thread of Object.keys(titles))
      sessions.set({ ...THREAD, thread }, { state: 'working', title: 'Plan the release' });
    await sessions.stopAll();
    expect(api.calls.filter((c) => c.method === 'agents.sessions.rename').map((c) => c.args)).toEqual([
      { channel_id: PLACE.channelId, thread_ts: PLACE.threadTs, title: 'Plan the release' },
    ]);
  });

  it('in a workspace where the app is not an agent: one log line, then no call at all, and streams end as before', async () => {
    const { lines, logger } = capture();
    const api = fakeApi((method) => (method.startsWith('agents.') ? slackError('unknown_method') : { ok: true }));
    const sessions = createAgentSessions({ call: api.call, logger });
    for (let i = 1; i <= 3; i++) {
      const thread = { ...THREAD, thread: `1700000000.00010${i}` };
      sessions.set(thread, { state: 'working', title: `Request ${i}` });
      sessions.set(thread, { state: 'idle' });
      await sessions.stopAll();
    }
    expect(api.calls).toHaveLength(1);
    expect(await sessions.streamEnd(PLACE, async (status) => status)).toBeNull();
    expect(lines.filter((l) => /not an agent/.test(l.msg))).toHaveLength(1);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  });

  it('a refusal of one call (a bad thread, a rate limit) is logged and the next change is still sent', async () => {
    const { lines, logger } = capture();
    let first = true;
    const api = fakeApi(() => (first ? ((first = false), slackError('thread_not_found')) : { ok: true }));
    const sessions = createAgentSessions({ call: api.call, logger });
    sessions.set(THREAD, { state: 'working' });
    await sessions.stopAll();
    sessions.set(THREAD, { state: 'idle' });
    await sessions.stopAll();
    expect(statuses(api.calls)).toEqual(['processing', 'active']);
    expect(lines.filter((l) => l.msg === 'setting the agent session status failed')).toHaveLength(1);
  });

  it('has no session for a conversation without a thread (a DM itself)', async () => {
    const api = fakeApi();
    const sessions = createAgentSessions({ call: api.call, logger: capture().logger });
    sessions.set({ ...THREAD, channel: 'D0ALICE01', thread: null }, { state: 'working' });
    await sessions.stopAll();
    expect(api.calls).toEqual([]);
  });
});
