import type { PendingQuestion, PendingSignIn, SignInEnd, StoredToolCall } from '../records/stored-values.js';
import type { PostIntent } from './agent-types.js';
import { newQuestionId } from './question-identity.js';

/** How a run's wait for a sign-in ended: the person connected, declined, the sign-in failed, they wrote instead, or time ran out. */
export type SignInOutcome =
  | { readonly kind: 'connected' }
  | { readonly kind: 'denied' | 'failed' }
  | { readonly kind: 'typed'; readonly text: string }
  | { readonly kind: 'timeout' };

/** What the thread reads while the run waits (the link itself went to the person privately). */
export const signInWaitText = (server: string): string =>
  `🔑 Waiting for you to connect **${server}**: I sent you a private Connect link. I'll carry on once you have connected (or reply here to go on without it).`;

/**
 * Parks a call on its principal's sign-in: the question a `waiting_user` run holds (answered by the OAuth callback on
 * any process, by the principal typing, or by the ask timeout) and the post that says so in the thread.
 */
export function signInWait(input: {
  server: string;
  call: StoredToolCall;
  remaining: StoredToolCall[];
  completeSummary: string | null;
  userId: string | null;
  now: number;
}): { pending: PendingQuestion; intent: PostIntent } {
  const { server, call, remaining, completeSummary, userId } = input;
  const signIn: PendingSignIn = { server, call, remaining, completeSummary };
  const question = signInWaitText(server);
  const pending: PendingQuestion = {
    id: newQuestionId(),
    signIn,
    question,
    options: [],
    toolCallId: call.id,
    askedAt: input.now,
    messageId: null,
    userId,
  };
  return { pending, intent: { purpose: 'question', text: question, ...(userId ? { mentionUserId: userId } : {}) } };
}

/** Reads a waiting run's answer as the end of its sign-in wait. */
export function signInOutcomeOf(answer: string | null, source: string): SignInOutcome {
  if (answer === null) return { kind: 'timeout' };
  const ends: readonly SignInEnd[] = ['connected', 'denied', 'failed'];
  const end = ends.find((e) => e === answer);
  if (source === 'sign_in' && end) return end === 'connected' ? { kind: end } : { kind: end };
  return { kind: 'typed', text: answer };
}

/** What the thread's waiting post says once the wait ended (appended to it by an edit). */
export function signInWaitEnded(outcome: SignInOutcome): string {
  switch (outcome.kind) {
    case 'connected':
      return '✅ Connected — carrying on.';
    case 'denied':
      return '🚫 Not connected (declined): going on without it.';
    case 'failed':
      return '⚠️ Connecting failed: going on without it.';
    case 'typed':
      return '↩️ Going on without it.';
    case 'timeout':
      return '⌛ Not connected in time: going on without it.';
  }
}

/**
 * The result the model gets for a call whose sign-in wait ended without a connection. Fixed wording for a
 * person who never connected (DESIGN.md): "<person> has not connected <server>".
 */
export function notSignedInResult(
  signIn: PendingSignIn,
  outcome: Exclude<SignInOutcome, { kind: 'connected' }>,
  userId: string | null,
  askTimeoutMs: number,
): { ok: false; error: string } {
  const who = userId ?? 'The person you act for';
  const { server, call } = signIn;
  const notRun = `so ${call.name} was not run`;
  switch (outcome.kind) {
    case 'denied':
      return { ok: false, error: `${who} declined to connect ${server}, ${notRun}. Go on without ${server}.` };
    case 'failed':
      return {
        ok: false,
        error: `${who} has not connected ${server}: its sign-in service failed, ${notRun}. Go on without it or try again later.`,
      };
    case 'typed':
      return {
        ok: false,
        error: `${who} has not connected ${server}, ${notRun}; instead they wrote: ${JSON.stringify(outcome.text)}`,
      };
    case 'timeout':
      return {
        ok: false,
        error: `${who} has not connected ${server} (no sign-in within ${Math.round(askTimeoutMs / 60_000)} minutes), ${notRun}. Go on without ${server}.`,
      };
  }
}
