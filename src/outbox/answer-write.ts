import type { AnswerWrite, PostIntent, RunPosts } from '../agent/agent-types.js';
import type { AnswerStream } from '../chat/chat-adapter.js';
import type { OutboxPayload } from '../db/schema.js';
import type { OutboxStore } from '../store/outbox-store.js';

/** What becomes of an answer's rows once written: as `record` does after its commit (the stream, the poster's kick). */
export type AnswerRowsRecorded = (
  conversationId: string,
  runId: string,
  posted: readonly { readonly id: number; readonly text: string }[],
  text: string,
  stream: AnswerStream | undefined,
) => void;

/**
 * RunPosts.writeFencedAnswer over the store's one-statement answer write (OutboxStore.addFencedAnswer): the post cut
 * into its platform messages as `record` cuts it, written with the step, the charge and the transcript row; once
 * written, the charge is counted (RunBudget.charge) and the rows are handed on as `record` hands them on.
 */
export function fencedAnswerWrite(
  add: NonNullable<OutboxStore['addFencedAnswer']>,
  piecesOf: (conversationId: string, intent: PostIntent) => readonly OutboxPayload[],
  recorded: AnswerRowsRecorded,
): NonNullable<RunPosts['writeFencedAnswer']> {
  return async (answer: AnswerWrite, fence) => {
    const { post } = answer;
    if (post?.heldFor) throw new Error('an answer held for its owner is recorded with `record`, not `writeAnswer`');
    const pieces = post ? piecesOf(answer.conversationId, post) : [];
    const charge = answer.charge;
    const written = await add(
      {
        conversationId: answer.conversationId,
        content: answer.content,
        toolCalls: answer.toolCalls,
        privateTo: answer.privateTo,
        purpose: post?.purpose ?? 'answer',
        pieces,
        charge: charge ? { day: charge.day, user: charge.user, usage: charge.usage, charge: charge.charge } : null,
      },
      fence,
    );
    if (!written) return null;
    charge?.recorded(written.runTokens, written.runUsd ?? 0);
    const ids = written.postIds;
    if (post && ids.length > 0)
      recorded(
        answer.conversationId,
        fence.runId,
        ids.map((id, i) => ({ id, text: pieces[i]!.text })),
        post.text,
        answer.stream,
      );
    return { steps: written.steps, messageId: written.messageId, ticket: ids };
  };
}
