import type { AnswerWrite, PostIntent, RunPosts } from '../agent/agent-types.js';
import type { OutboxPayload } from '../db/schema.js';
import type { AnswerRowsWritten } from '../store/answer-rows.js';
import type { ClaimAttempt, OutboxStore } from '../store/outbox-store.js';
import type { OutboxPoster } from './outbox-poster.js';

/**
 * RunPosts.writeFencedAnswer over the store's one-statement answer write (OutboxStore.addFencedAnswer): the post cut
 * into its platform messages as `record` cuts it, written with the step, the charge and the transcript row; once
 * written, the charge is counted (RunBudget.charge) and the rows are handed on as `record` hands them on (the stream,
 * the poster's kick).
 *
 * Where the store can also claim the conversation's rows in that statement (`addFencedAnswerClaiming`, PostgreSQL)
 * and the poster may start a turn there now (`claimAhead`), the write claims them and the turn starts on that claim,
 * with the first row it read: the poster sends no claim of its own (issue 40, eleventh round). A turn of this process
 * already running there holds the claim: the write claims nothing and the kick runs the conversation again after it.
 */
export function fencedAnswerWrite(
  store: Pick<OutboxStore, 'addFencedAnswer' | 'addFencedAnswerClaiming'>,
  poster: Pick<OutboxPoster, 'viaStream' | 'kick' | 'claimAhead'>,
  piecesOf: (conversationId: string, intent: PostIntent) => readonly OutboxPayload[],
): NonNullable<RunPosts['writeFencedAnswer']> {
  const add = store.addFencedAnswer?.bind(store);
  const addClaiming = store.addFencedAnswerClaiming?.bind(store);
  if (!add) throw new Error('an answer written in one statement needs a store that writes it (addFencedAnswer)');
  return async (answer: AnswerWrite, fence) => {
    const { post, conversationId } = answer;
    if (post?.heldFor) throw new Error('an answer held for its owner is recorded with `record`, not `writeAnswer`');
    const pieces = post ? piecesOf(conversationId, post) : [];
    const charge = answer.charge;
    const rows = {
      conversationId,
      content: answer.content,
      toolCalls: answer.toolCalls,
      privateTo: answer.privateTo,
      purpose: post?.purpose ?? 'answer',
      pieces,
      charge: charge ? { day: charge.day, user: charge.user, usage: charge.usage, charge: charge.charge } : null,
    };
    // Only an answer with rows to post claims: a step of tool calls alone leaves the outbox alone.
    const ahead = addClaiming && pieces.length > 0 ? poster.claimAhead(conversationId) : null;
    let written: (AnswerRowsWritten & { readonly claim?: ClaimAttempt }) | null;
    try {
      written = ahead ? await addClaiming!(rows, fence) : await add(rows, fence);
    } catch (err) {
      ahead?.(null);
      throw err;
    }
    if (!written) {
      ahead?.(null);
      return null;
    }
    const ids = written.postIds;
    if (post && ids.length > 0) {
      // Registered before the turn can reach the rows: the worker finishes the live preview instead of posting.
      if (answer.stream)
        poster.viaStream(
          ids.map((id, i) => ({ id, text: pieces[i]!.text })),
          post.text,
          answer.stream,
          fence.runId,
        );
      if (!ahead) poster.kick(conversationId, ids);
    }
    ahead?.(written.claim ?? null, ids);
    charge?.recorded(written.runTokens, written.runUsd ?? 0);
    return { steps: written.steps, messageId: written.messageId, ticket: ids };
  };
}
