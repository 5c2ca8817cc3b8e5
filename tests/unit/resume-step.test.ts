import { describe, expect, it } from 'vitest';
import { DENIED_RESULT } from '../../src/agent/approval-decision.js';
import { resumedStep } from '../../src/runs/agent/resume-step.js';
import { signInOutcomeOf, signInWait, type SignInOutcome } from '../../src/agent/sign-in-wait.js';
import type { PendingSignIn, StoredToolCall } from '../../src/records/stored-values.js';

const call: StoredToolCall = { id: 'call_1', name: 'linear__whoami', arguments: '{}' };
const next: StoredToolCall = { id: 'call_2', name: 'send_update', arguments: '{"text":"hi"}' };
const signIn: PendingSignIn = { server: 'linear', call, remaining: [next], completeSummary: null };
const DAY = 24 * 60 * 60_000;
const offered = () => true;

describe('how a parked step goes on', () => {
  it('an allowed approval runs the call (without asking again) and the rest; a denial or timeout records why and runs the rest', () => {
    const approval = { tool: call.name, call, remaining: [next], completeSummary: 'done' };
    expect(resumedStep({ approval, decision: 'once' }, DAY, 'U1', offered)).toEqual({
      skipped: null,
      calls: [call, next],
      approvedCallId: 'call_1',
      completeSummary: 'done',
    });
    expect(resumedStep({ approval, decision: 'deny' }, DAY, 'U1', offered)).toEqual({
      skipped: { callId: 'call_1', result: DENIED_RESULT },
      calls: [next],
      completeSummary: 'done',
    });
    expect(resumedStep({ approval, decision: 'timeout' }, DAY, 'U1', offered).skipped?.result).toEqual({
      ok: false,
      error: 'Nobody approved this tool call within 1440 minutes, so it was not run.',
    });
  });

  it('a sign-in that connected runs the waiting call, past the approval gate it had passed', () => {
    expect(resumedStep({ signIn, outcome: { kind: 'connected' } }, DAY, 'U1', offered)).toEqual({
      skipped: null,
      calls: [call, next],
      approvedCallId: 'call_1',
      completeSummary: null,
    });
  });

  it("a connected sign-in whose tool is no longer offered (the sign_in stand-in, replaced by the server's tools) completes as connected", () => {
    const step = resumedStep(
      { signIn: { ...signIn, call: { ...call, name: 'linear__sign_in' } }, outcome: { kind: 'connected' } },
      DAY,
      'U1',
      () => false,
    );
    expect(step.calls).toEqual([next]);
    expect(step.skipped?.result).toEqual({
      ok: true,
      connected: true,
      note: 'U1 is connected to linear now; its tools are offered from the next step.',
    });
  });

  it('every other end tells the model the person has not connected, and why', () => {
    const result = (outcome: SignInOutcome) =>
      (resumedStep({ signIn, outcome }, DAY, 'U1', offered).skipped?.result as { error: string }).error;
    expect(result({ kind: 'timeout' })).toBe(
      'U1 has not connected linear (no sign-in within 1440 minutes), so linear__whoami was not run. Go on without linear.',
    );
    expect(result({ kind: 'denied' })).toMatch(/^U1 declined to connect linear, so linear__whoami was not run/);
    expect(result({ kind: 'failed' })).toMatch(/^U1 has not connected linear: its sign-in service failed/);
    expect(result({ kind: 'typed', text: 'skip it' })).toBe(
      'U1 has not connected linear, so linear__whoami was not run; instead they wrote: "skip it"',
    );
  });

  it('reads the recorded answer: only the callback (source sign_in) can say connected; a typed "connected" is a reply', () => {
    expect(signInOutcomeOf('connected', 'sign_in')).toEqual({ kind: 'connected' });
    expect(signInOutcomeOf('denied', 'sign_in')).toEqual({ kind: 'denied' });
    expect(signInOutcomeOf('connected', 'typed')).toEqual({ kind: 'typed', text: 'connected' });
    expect(signInOutcomeOf(null, 'timeout')).toEqual({ kind: 'timeout' });
  });

  it('the wait is a question for the principal, with no buttons, mentioning them in the thread', () => {
    const { pending, intent } = signInWait({
      server: 'linear',
      call,
      remaining: [next],
      completeSummary: null,
      userId: 'U1',
      now: 5,
    });
    expect(pending).toMatchObject({
      signIn,
      options: [],
      toolCallId: 'call_1',
      askedAt: 5,
      messageId: null,
      userId: 'U1',
    });
    expect(pending.id).toMatch(/^[0-9a-z]{1,16}$/);
    expect(intent).toMatchObject({ purpose: 'question', mentionUserId: 'U1' });
    expect(intent.text).toContain('**linear**');
  });
});
