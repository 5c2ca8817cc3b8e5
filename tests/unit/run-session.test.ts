import { describe, expect, it } from 'vitest';
import type { SessionUpdate } from '../../src/chat/agent-session.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import { silentLogger } from '../../src/logger.js';
import { RunFencedError } from '../../src/run-records/run-fence.js';
import { runSession, sessionEndOf } from '../../src/runs/runtime/run-session.js';

const ref: ConversationRef = {
  platform: 'slack',
  workspace: 'T0TEAM0001',
  channel: 'C024BE91L',
  thread: '1700000000.000100',
};

/** A presence port that records what the thread's session was told. */
function recording() {
  const told: SessionUpdate[] = [];
  return { told, presence: { setSession: async (_c: ConversationRef, u: SessionUpdate) => void told.push(u) } };
}

describe("a run's thread session", () => {
  it('starts working with its principal and title, waits while a step waits for a person (an MCP question, a sign-in), works again, and ends idle — only changes', () => {
    const { told, presence } = recording();
    const session = runSession(
      presence,
      ref,
      { principalUserId: 'U0ALICE01', title: 'Plan the release' },
      silentLogger(),
    );
    session.started();
    session.activity({ activity: 'thinking' });
    session.activity({ activity: 'tool', toolName: 'files__list', step: { id: 'c1', status: 'running' } });
    session.activity({
      activity: 'waiting',
      toolName: 'files__list',
      step: { id: 'c1', status: 'waiting', waitingFor: 'answer' },
    });
    session.activity({
      activity: 'waiting',
      toolName: 'files__list',
      step: { id: 'c1', status: 'waiting', waitingFor: 'answer' },
    });
    session.activity({ activity: 'tool', toolName: 'files__list', step: { id: 'c1', status: 'running' } });
    session.ended('idle');
    session.activity({ activity: 'thinking' });
    session.ended('waiting');
    expect(told).toEqual([
      { state: 'working', principalUserId: 'U0ALICE01', title: 'Plan the release' },
      { state: 'waiting' },
      { state: 'working' },
      { state: 'idle' },
    ]);
  });

  it('a run parked on a question, an approval or a sign-in leaves the session waiting; one this process no longer runs leaves it as it is', () => {
    const parked = recording();
    const a = runSession(parked.presence, ref, { principalUserId: null, title: null }, silentLogger());
    a.started();
    a.activity({ activity: 'waiting', toolName: 'tracker__create_issue', step: { id: 'c2', status: 'waiting' } });
    a.ended('waiting');
    expect(parked.told).toEqual([{ state: 'working' }, { state: 'waiting' }]);

    const left = recording();
    const b = runSession(left.presence, ref, { principalUserId: 'U0ALICE01', title: null }, silentLogger());
    b.started();
    b.ended('left');
    expect(left.told).toEqual([{ state: 'working', principalUserId: 'U0ALICE01' }]);
  });

  it('how an execution ends decides the session: waiting on a person, left when shutting down or taken over, else idle', () => {
    const question = { id: 'q1', text: 'Which day?', userId: 'U0ALICE01' } as never;
    expect(sessionEndOf({ outcome: { kind: 'waiting', question } }, false)).toBe('waiting');
    expect(sessionEndOf({ outcome: { kind: 'completed', summary: null } }, true)).toBe('idle');
    expect(sessionEndOf({ outcome: { kind: 'aborted' } }, false)).toBe('idle');
    expect(sessionEndOf({ outcome: { kind: 'aborted' } }, true)).toBe('left');
    expect(sessionEndOf({ outcome: { kind: 'failed', reason: 'model down', transient: true } }, false)).toBe('idle');
    expect(sessionEndOf({ error: new RunFencedError({ runId: 'r1', owner: 'errand-b', generation: 2 }) }, false)).toBe(
      'left',
    );
    expect(sessionEndOf({ error: new Error('a bug') }, true)).toBe('idle');
  });
});
