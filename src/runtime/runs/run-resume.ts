import { parseApprovalDecision, type ApprovalDecision } from '../../agent/approval-decision.js';
import { signInOutcomeOf, signInWaitEnded } from '../../agent/sign-in-wait.js';
import { elicitationOutcomeOf } from '../../agent/elicitation-wait.js';
import type { CarriedQuestions } from './carried-questions.js';
import type { ToolGrantStore } from '../../conversations/tool-grant-store.js';
import type { PendingQuestion, RunRow, TaskRow } from '../../db/schema.js';
import type { OutboxChanges } from '../../outbox/outbox.js';
import type { RunFence } from '../../runs/run-fence.js';
import type { Store } from '../../store/store.js';
import type { TaskService } from '../../tasks/task-service.js';
import type { RunResume } from './run-launch.js';
import type { ApprovalAudit } from '../../audit/approval-audit.js';

/**
 * How a waiting run got its answer: a click is shown by the adapter, anything else by editing the post here;
 * `sign_in`: the OAuth callback ended the sign-in the run waited on.
 */
export type AnswerSource = 'click' | 'typed' | 'timeout' | 'sign_in' | 'elicitation';

export interface ResumeDeps {
  store: Pick<Store, 'atomically'>;
  tasks: TaskService;
  grants: ToolGrantStore;
  /** Where the decision is shown on the approval post: an edit recorded in the outbox with the resume. */
  changes: Pick<OutboxChanges, 'recordEdit' | 'piecesOf'>;
  askTimeoutMs: number;
  /** Now, for settling a carried-over MCP question its run stops waiting on. */
  now(): number;
  /** Closes the carried-over MCP question a run stops waiting on, in the resume's transaction. */
  carried: CarriedQuestions;
  /** Where each approval decision taken back here is recorded, with who made it. */
  approvals?: ApprovalAudit;
}

/** A parked run back to running, ready to launch again. */
export interface Resumed {
  task: TaskRow | null;
  fence: RunFence;
  /** An approval's decision, for the tool call that waited on it. */
  resume?: RunResume;
}

/**
 * Takes a parked run back with its answer: the run to running, its fence, and a question's answer for the
 * model in one write (a claim, like the start of a task); an approval's decision granted and shown on its post.
 * Takes no slot: the coordinator holds the conversation while this runs and launches what it returns.
 */
export class RunResumer {
  constructor(private readonly deps: ResumeDeps) {}

  /** Null: the run was not waiting any more (answered, stopped or resumed elsewhere first). */
  async resume(
    run: RunRow,
    answer: string | null,
    userId: string | null,
    source: AnswerSource,
  ): Promise<Resumed | null> {
    const { conversationId } = run;
    const task = run.taskId !== null ? await this.deps.tasks.get(run.taskId) : null;
    const minutes = Math.round(this.deps.askTimeoutMs / 60_000);
    const resumed = await this.deps.store.atomically(async (tx) => {
      const question = await tx.runs.unpark(run.id);
      if (!question) return null;
      if (!question.approval && !question.signIn && !question.elicitation) {
        const result =
          answer === null
            ? {
                ok: true,
                answer: 'no_answer',
                note: `Nobody answered within ${minutes} minutes. Decide how to go on without the answer.`,
              }
            : { ok: true, answer, ...(userId ? { answered_by: userId } : {}) };
        await tx.transcript.append({
          conversationId,
          runId: run.id,
          role: 'tool',
          content: JSON.stringify(result),
          toolCallId: question.toolCallId,
        });
      }
      const decision: ApprovalDecision | 'timeout' | null = question.approval
        ? answer === null
          ? 'timeout'
          : (parseApprovalDecision(answer) ?? 'deny')
        : null;
      // In the claim's transaction: the post shows the decision exactly when this process took the run back with it.
      if (decision && source !== 'click')
        await this.showDecision(conversationId, run.id, question, decision, userId, tx);
      if (question.signIn && question.messageId)
        await this.deps.changes.recordEdit(
          conversationId,
          run.id,
          question.messageId,
          `${question.question}\n\n${signInWaitEnded(signInOutcomeOf(answer, source))}`,
          tx,
        );
      if (question.elicitation)
        await this.deps.carried.close(
          tx,
          this.deps.changes,
          run,
          question,
          elicitationOutcomeOf(answer, source, userId),
          this.deps.now(),
        );
      return { question, decision, fence: await tx.runs.fence(run.id) };
    });
    if (!resumed) return null;
    const { question, decision, fence } = resumed;
    if (question.signIn)
      return { task, fence, resume: { signIn: question.signIn, outcome: signInOutcomeOf(answer, source) } };
    if (question.elicitation)
      return {
        task,
        fence,
        resume: { elicitation: question.elicitation, outcome: elicitationOutcomeOf(answer, source, userId) },
      };
    if (!question.approval || !decision) return { task, fence };
    await this.deps.approvals?.decided({
      conversationId,
      runId: run.id,
      tool: question.approval.tool,
      call: question.approval.call,
      decision,
      decidedBy: decision === 'timeout' ? null : userId,
    });
    // For the run's principal (the question names them), whoever decided: an admin's "always" is consent for that person's runs only.
    if (decision === 'always')
      await this.deps.grants.grant(conversationId, question.approval.tool, userId, question.userId ?? run.principal);
    return { task, fence, resume: { approval: question.approval, decision } };
  }

  /**
   * Edits an approval post to say what was decided, removing its buttons. Arguments too long for one
   * message were posted over several, and `messageId` is the last of them: it keeps its own part of
   * the text (cut exactly as the outbox cut it), so the arguments still read whole.
   */
  private async showDecision(
    conversationId: string,
    runId: string,
    question: PendingQuestion,
    decision: ApprovalDecision | 'timeout',
    userId: string | null,
    tx: Store,
  ): Promise<void> {
    if (!question.messageId) return;
    const by = userId ? ` by <@${userId}>` : '';
    const outcome = {
      once: `✅ Allowed once${by}.`,
      always: `✅ Always allowed here${by}.`,
      deny: `🚫 Denied${by}.`,
      timeout: '⌛ Nobody decided in time: not run.',
    }[decision];
    const pieces = this.deps.changes.piecesOf(conversationId, {
      purpose: 'approval',
      text: question.question,
      ...(question.userId ? { mentionUserId: question.userId } : {}),
    });
    const shown = pieces.at(-1)?.text ?? question.question;
    await this.deps.changes.recordEdit(conversationId, runId, question.messageId, `${shown}\n\n${outcome}`, tx);
  }
}
