import type { PostTicket, RunPosts } from '../../agent/agent-types.js';
import type { RunPrivacy } from '../../agent/run-privacy.js';
import type { RunBudget, TokenUsage } from '../../budget/budget-stop.js';
import type { AnswerStream } from '../../chat/chat-adapter.js';
import type { StoredToolCall } from '../../records/stored-values.js';

/** A model response as its step records it. */
export interface AnswerStep {
  readonly conversationId: string;
  readonly runId: string;
  /** The answer's text (null: the response only calls tools, nothing is posted). */
  readonly text: string | null;
  readonly toolCalls: StoredToolCall[];
  readonly usage: TokenUsage | undefined;
  readonly budget: RunBudget | undefined;
  readonly privacy: RunPrivacy;
  /** The live preview of this answer, finished by its post. */
  readonly stream: AnswerStream | undefined;
}

/**
 * Records a model response: the step count, its charge, its transcript row and the post of its text are one write,
 * so a crash can neither post it twice nor lose it. Where the run's writes offer it (PostgreSQL: `writeAnswer`), one
 * statement conditional on the run's fence; else one transaction of the parts. A post held for its owner (private
 * material where others read) takes the transaction: it is written with the transcript row's id. Returns the run's
 * steps and the post's ticket.
 */
export async function writeAnswerStep(
  posts: RunPosts,
  step: AnswerStep,
): Promise<{ steps: number; ticket: PostTicket }> {
  const { conversationId, runId, text, usage, budget, privacy } = step;
  const charge = usage && budget?.charge?.(usage);
  if (posts.writeAnswer && !privacy.holdsPosts && (!usage || !budget || charge)) {
    const written = await posts.writeAnswer({
      conversationId,
      runId,
      content: text,
      toolCalls: step.toolCalls,
      privateTo: privacy.privateTo,
      ...(text ? { post: privacy.intent('answer', text, null) } : {}),
      ...(text && step.stream ? { stream: step.stream } : {}),
      ...(charge ? { charge } : {}),
    });
    return { steps: written.steps, ticket: written.ticket };
  }
  let steps = 0;
  const ticket = await posts.atomically(async (tx) => {
    steps = await tx.runs.countStep(runId);
    if (usage) await budget?.record(usage, tx);
    const row = await tx.transcript.append({
      conversationId,
      runId,
      role: 'assistant',
      content: text,
      toolCalls: step.toolCalls,
      privateTo: privacy.privateTo,
    });
    return text ? posts.record(conversationId, runId, privacy.intent('answer', text, row), tx, step.stream) : [];
  });
  return { steps, ticket };
}
