import { newQuestionId } from '../../agent/question-identity.js';
import type { PendingQuestion, RunRow, StoredToolCall } from '../../db/schema.js';
import type { Logger } from '../../logger.js';
import type { Store } from '../../store/store.js';

/** Transcript rows read back to find the step a run was in when it died. */
const LAST_STEP_ROWS = 50;

/** The step's call that was in flight (its first call without a result: calls run in order) and the calls after it. */
async function interruptedCall(
  tx: Store,
  run: RunRow,
): Promise<{ call: StoredToolCall; remaining: StoredToolCall[]; at: number } | null> {
  const rows = (await tx.transcript.recent(run.conversationId, LAST_STEP_ROWS)).filter((m) => m.runId === run.id);
  const stepAt = rows.findLastIndex((m) => m.role === 'assistant');
  const step = rows[stepAt];
  const calls = step?.toolCalls ?? [];
  if (!step || calls.length === 0) return null;
  const answered = new Set(
    rows.slice(stepAt + 1).flatMap((m) => (m.role === 'tool' && m.toolCallId ? [m.toolCallId] : [])),
  );
  const first = calls.findIndex((c) => !answered.has(c.id));
  if (first < 0) return null;
  return { call: calls[first]!, remaining: calls.slice(first + 1), at: step.createdAt };
}

/**
 * Recovery of a run whose process died while its tool call waited on an MCP server's question (inside the caller's
 * transaction; the run is `interrupted`): instead of running the task again, the run parks `waiting_user` on that
 * question, which stays open in the thread with its buttons. Whoever answers it, on any process, resumes the run:
 * the call is made again with the same arguments and the server's repeated question gets the stored answer. A
 * question settled after the call died (nobody was left to hear it) resumes the run at once. The ask timeout counts
 * from when the question was first asked. False when the run's last call did not wait on a question: recover as usual.
 */
export async function carryOverElicitation(
  tx: Store,
  run: RunRow,
  askTimeoutMs: number,
  logger: Logger,
): Promise<boolean> {
  const question = await tx.elicitations.newestOf(run.id);
  if (!question || question.carriedOver) return false;
  const step = await interruptedCall(tx, run);
  if (!step || step.call.name !== question.tool || question.askedAt < step.at) return false;
  const settled = question.state !== 'waiting';
  const pending: PendingQuestion = {
    id: newQuestionId(),
    elicitation: {
      id: question.id,
      server: question.server,
      call: step.call,
      remaining: step.remaining,
      completeSummary: null,
    },
    question: question.postText,
    options: [],
    toolCallId: step.call.id,
    askedAt: question.askedAt,
    messageId: question.messageId,
    userId: question.principal,
    ...(settled
      ? { answer: { text: question.state, userId: question.answeredBy, source: 'elicitation' as const } }
      : {}),
  };
  if (!(await tx.runs.park(run.id, pending, settled ? 0 : question.askedAt + askTimeoutMs, 'interrupted')))
    return false;
  await tx.elicitations.carryOver(question.id);
  logger.info(
    { runId: run.id, elicitationId: question.id, state: question.state },
    "a run's call died waiting on an MCP server's question; the run waits on the question instead",
  );
  return true;
}
