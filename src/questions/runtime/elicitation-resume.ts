import { elicitationWaitEnded } from '../../agent/elicitation-wait.js';
import type { CarriedQuestions } from '../../runs/runtime/carried-questions.js';

/**
 * In the transaction that takes a run back from a carried-over MCP question: a wait ended by a typed reply or the
 * timeout settles the question (so its buttons answer "closed"), and the question's post is edited to say how it
 * ended (a click's outcome as the desk recorded it). The run then goes on as resume-step.ts says.
 */
export const closeCarriedOver: CarriedQuestions['close'] = async (tx, changes, run, question, outcome, now) => {
  const id = question.elicitation?.id;
  if (id === undefined) return;
  let shown: string | null = null;
  if (outcome.kind === 'typed' || outcome.kind === 'timeout') {
    const text = elicitationWaitEnded(outcome);
    if (
      await tx.elicitations.settle(
        id,
        { state: 'cancelled', answer: { action: 'cancel' }, answeredBy: null, outcome: text },
        now,
      )
    )
      shown = text;
  }
  shown ??= (await tx.elicitations.get(id))?.outcome ?? null;
  if (shown !== null && question.messageId)
    await changes.recordEdit(run.conversationId, run.id, question.messageId, `${question.question}\n\n${shown}`, tx);
};
