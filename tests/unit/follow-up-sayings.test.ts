import { describe, expect, it } from 'vitest';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import type { RunOutcome } from '../../src/runtime/follow-ups/follow-up-runs.js';
import { sayingsFor } from '../../src/runtime/follow-ups/follow-up-sayings.js';
import type { StoredMessage } from '../../src/runtime/follow-ups/stored-message.js';

const ref: ConversationRef = { platform: 'slack', workspace: 'T1', channel: 'C1', thread: '1.1' };
const task = (over: Partial<Extract<StoredMessage['decision'], { kind: 'task' }>> = {}): StoredMessage => ({
  decision: {
    kind: 'task',
    conversationId: 'c1',
    taskId: 7,
    busy: false,
    awaitingApproval: false,
    files: null,
    claim: null,
    ...over,
  },
  ref,
  userId: 'U1',
});
const started = (start: Extract<RunOutcome, { kind: 'started' }>['start'], stillPending = true): RunOutcome => ({
  kind: 'started',
  start,
  stillPending,
});

describe('what the follow-up of a stored message says', () => {
  it('says nothing when the task itself started, and names unread files first when there are any', () => {
    expect(sayingsFor(task(), started({ kind: 'started', taskId: 7 }), [])).toEqual([]);
    expect(sayingsFor(task(), started({ kind: 'started', taskId: 7 }), ['report.pdf was not read: too large'])).toEqual(
      [{ to: 'thread', conversationId: 'c1', text: 'report.pdf was not read: too large' }],
    );
  });

  it('queues behind the conversation, behind an approval, or (only if it still waits) behind the other conversations', () => {
    expect(sayingsFor(task({ busy: true }), started({ kind: 'busy_conversation' }), [])[0]).toMatchObject({
      to: 'thread',
      text: expect.stringContaining("when I finish what I'm doing here"),
    });
    expect(sayingsFor(task({ awaitingApproval: true }), started({ kind: 'busy_conversation' }), [])[0]).toMatchObject({
      to: 'thread',
      text: expect.stringContaining('waiting for a decision'),
    });
    expect(sayingsFor(task(), started({ kind: 'busy_global' }), [])).toEqual([
      {
        to: 'thread_if_still_waiting',
        conversationId: 'c1',
        taskId: 7,
        text: expect.stringContaining('busy in other conversations'),
      },
    ]);
    expect(sayingsFor(task(), started({ kind: 'nothing_ready' }), [])[0]).toMatchObject({
      text: expect.stringContaining('tasks ahead of it'),
    });
  });

  it('says nothing for a task another claim already started, or when Errand is stopping', () => {
    expect(sayingsFor(task(), started({ kind: 'busy_conversation' }, false), [])).toEqual([]);
    expect(sayingsFor(task(), started({ kind: 'stopping' }), [])).toEqual([]);
  });

  it('announces a stop with who asked, or says nothing was running', () => {
    const stop: StoredMessage = { decision: { kind: 'stop', conversationId: 'c1', all: true }, ref, userId: 'U1' };
    expect(
      sayingsFor(stop, { kind: 'stopped', stop: { stoppedRun: true, stoppedTaskId: 7, cancelledPending: 2 } }, []),
    ).toEqual([
      { to: 'thread', conversationId: 'c1', text: '⏹️ Stopped #7 (requested by <@U1>). Cancelled 2 pending tasks.' },
    ]);
    expect(
      sayingsFor(stop, { kind: 'stopped', stop: { stoppedRun: false, stoppedTaskId: null, cancelledPending: 0 } }, []),
    ).toEqual([{ to: 'thread', conversationId: 'c1', text: 'Nothing is running here.' }]);
  });

  it('refuses privately: to the person in a conversation Errand holds, outside one where access is denied', () => {
    const refuse: StoredMessage = {
      decision: { kind: 'refuse', conversationId: 'c1', text: 'Only the person who asked…' },
      ref,
      userId: 'U2',
    };
    expect(sayingsFor(refuse, { kind: 'nothing' }, [])).toEqual([
      { to: 'person', conversationId: 'c1', userId: 'U2', text: 'Only the person who asked…' },
    ]);
    const denied: StoredMessage = { decision: { kind: 'denied', reason: 'channel' }, ref, userId: 'U2' };
    expect(sayingsFor(denied, { kind: 'nothing' }, [])).toEqual([
      { to: 'outsider', ref, userId: 'U2', text: expect.any(String) },
    ]);
    expect(
      sayingsFor({ decision: { kind: 'answer', runId: 'r1' }, ref, userId: 'U1' }, { kind: 'nothing' }, []),
    ).toEqual([]);
  });
});
