import { describe, expect, it } from 'vitest';
import {
  attemptsMatter,
  settleRun,
  type RunEnding,
  type SettlementInput,
} from '../../src/runs/runtime/run-settlement.js';

const base: Omit<SettlementInput, 'ending'> = {
  abortReason: null,
  attempts: 1,
  maxAttempts: 3,
  maxRunMinutes: 30,
  retryDelayMs: (n) => 30_000 * 2 ** (n - 1),
};

describe('how a run ending is recorded', () => {
  it('a plain answer completes run and task, with no note', () => {
    expect(settleRun({ ...base, ending: { kind: 'completed', summary: null } })).toEqual({
      run: { to: 'completed', summary: null },
      task: { kind: 'complete', summary: 'Answered.' },
      note: null,
      schedule: null,
    });
  });

  it('a target that is gone fails run and task with the reason and posts no note there', () => {
    const s = settleRun({
      ...base,
      ending: { kind: 'target_gone', reason: 'Slack chat.postMessage failed (is_archived)' },
    });
    expect(s.run).toEqual({ to: 'failed', error: 'target gone: Slack chat.postMessage failed (is_archived)' });
    expect(s.task).toEqual({
      kind: 'fail',
      reason: 'Stopped: the conversation can no longer be posted to (Slack chat.postMessage failed (is_archived)).',
    });
    expect(s.note).toBeNull();
    expect(s.schedule).toBeNull();
  });

  it('a scheduled run counts for its schedule when it completes and against it when its target is gone', () => {
    expect(settleRun({ ...base, fromSchedule: true, ending: { kind: 'completed', summary: 'done' } }).schedule).toEqual(
      { ok: true },
    );
    expect(
      settleRun({ ...base, fromSchedule: true, ending: { kind: 'target_gone', reason: 'gone' } }).schedule,
    ).toEqual({ ok: false, reason: 'gone' });
    expect(
      settleRun({ ...base, fromSchedule: true, ending: { kind: 'failed', reason: 'model down', transient: true } })
        .schedule,
    ).toBeNull();
  });

  it('a waiting run, a stop and a shutdown leave the run as it is', () => {
    expect(
      settleRun({
        ...base,
        ending: {
          kind: 'waiting',
          question: { question: 'q', options: [], toolCallId: 'c', askedAt: 0, messageId: null, userId: null },
        },
      }).run,
    ).toBeNull();
    expect(settleRun({ ...base, ending: { kind: 'aborted' }, abortReason: 'stop' }).run).toBeNull();
    expect(settleRun({ ...base, ending: { kind: 'aborted' }, abortReason: 'shutdown' }).run).toBeNull();
  });

  it('a transient failure re-queues with one plain note, until the attempts are used up', () => {
    const retry = settleRun({
      ...base,
      ending: { kind: 'failed', reason: 'the model endpoint failed (HTTP 500)', transient: true },
    });
    expect(retry.task).toEqual({ kind: 'requeue', delayMs: 30_000, reason: 'the model endpoint failed (HTTP 500)' });
    expect(retry.note).toBe("⚠️ I couldn't finish: the model endpoint failed (HTTP 500). I'll try again in 30 s.");
    const last = settleRun({
      ...base,
      attempts: 3,
      ending: { kind: 'failed', reason: 'the model endpoint failed (HTTP 500)', transient: true },
    });
    expect(last.task).toEqual({ kind: 'fail', reason: 'the model endpoint failed (HTTP 500)' });
    expect(last.note).toBe("❌ I couldn't finish this: the model endpoint failed (HTTP 500).");
  });

  it('an unexpected exception ends the run as failed and retries the task, without leaking the error text to the thread', () => {
    const s = settleRun({
      ...base,
      ending: { kind: 'crashed', error: new Error('SQLITE_FULL: database or disk is full') },
    });
    expect(s.run).toEqual({ to: 'failed', error: 'internal error: SQLITE_FULL: database or disk is full' });
    expect(s.task?.kind).toBe('requeue');
    expect(s.note).toMatch(/something went wrong on my side \(it has been logged\)/);
    expect(s.note).not.toMatch(/SQLITE/);
  });

  it('the time and step limits fail the task with their own note', () => {
    expect(settleRun({ ...base, ending: { kind: 'aborted' }, abortReason: 'timeout' }).note).toBe(
      '⏱️ I stopped: this run reached its time limit of 30 minutes.',
    );
    expect(settleRun({ ...base, ending: { kind: 'step_limit', steps: 25 } }).task).toEqual({
      kind: 'fail',
      reason: 'Stopped after 25 steps (MAX_STEPS).',
    });
  });

  it('depends on the attempts so far exactly for the endings attemptsMatter names (the settler reads the task only then)', () => {
    const endings: RunEnding[] = [
      { kind: 'completed', summary: 'done' },
      {
        kind: 'waiting',
        question: { question: 'q', options: [], toolCallId: 'c', askedAt: 0, messageId: null, userId: null },
      },
      { kind: 'aborted' },
      { kind: 'step_limit', steps: 9 },
      { kind: 'failed', reason: 'bad request', transient: false },
      { kind: 'failed', reason: 'timeout', transient: true },
      { kind: 'target_gone', reason: 'gone' },
      { kind: 'over_budget', stop: { scope: 'run', unit: 'tokens', used: 10, limit: 5 }, runTokens: 5 },
      { kind: 'crashed', error: new Error('boom') },
    ];
    for (const ending of endings) {
      const first = settleRun({ ...base, attempts: 1, ending });
      const last = settleRun({ ...base, attempts: 3, ending });
      expect(attemptsMatter(ending), ending.kind).toBe(JSON.stringify(first) !== JSON.stringify(last));
    }
  });
});
