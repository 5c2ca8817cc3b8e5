import type { PendingElicitation } from '../records/stored-values.js';

/** How a run's wait on a carried-over MCP question ended: settled by a person (or the console's end), a reply typed instead, or the ask timeout. */
export type ElicitationOutcome =
  | { readonly kind: 'answered'; readonly by: string | null }
  | { readonly kind: 'declined'; readonly by: string | null }
  | { readonly kind: 'cancelled'; readonly by: string | null }
  | { readonly kind: 'typed'; readonly text: string }
  | { readonly kind: 'timeout' };

/** Reads a waiting run's recorded answer as the end of its wait on a question (`source` `elicitation`: the row's state). */
export function elicitationOutcomeOf(answer: string | null, source: string, userId: string | null): ElicitationOutcome {
  if (answer === null) return { kind: 'timeout' };
  if (source === 'elicitation') {
    if (answer === 'answered') return { kind: 'answered', by: userId };
    if (answer === 'declined') return { kind: 'declined', by: userId };
    if (answer === 'cancelled') return { kind: 'cancelled', by: userId };
  }
  return { kind: 'typed', text: answer };
}

/** What the question's post says once a typed reply or the timeout ended the wait (a click's outcome is the desk's). */
export function elicitationWaitEnded(outcome: Extract<ElicitationOutcome, { kind: 'typed' | 'timeout' }>): string {
  return outcome.kind === 'timeout'
    ? '⌛ Nobody answered in time: cancelled.'
    : '↩️ Closed: a reply in the thread came instead.';
}

/**
 * The result the model gets for a call whose question was not answered after a restart: the call is not made
 * again (only an answer is given to the server's repeated question).
 */
export function unansweredResult(
  pending: PendingElicitation,
  outcome: Exclude<ElicitationOutcome, { kind: 'answered' }>,
  userId: string | null,
  askTimeoutMs: number,
): { ok: false; error: string } {
  const who = userId ?? 'The person you act for';
  const { server, call } = pending;
  const notRun = `so ${call.name} was not completed (it had been interrupted by a restart while ${server} waited for the answer)`;
  switch (outcome.kind) {
    case 'declined':
      return { ok: false, error: `${who} declined the question ${server} asked, ${notRun}.` };
    case 'cancelled':
      return { ok: false, error: `The question ${server} asked was cancelled, ${notRun}.` };
    case 'typed':
      return {
        ok: false,
        error: `${who} did not answer the question ${server} asked, ${notRun}; instead they wrote: ${JSON.stringify(outcome.text)}`,
      };
    case 'timeout':
      return {
        ok: false,
        error: `Nobody answered the question ${server} asked within ${Math.round(askTimeoutMs / 60_000)} minutes, ${notRun}.`,
      };
  }
}
