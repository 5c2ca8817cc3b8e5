import type { PendingQuestion } from '../records/stored-values.js';
import type { AccessPolicy, Person } from '../access/access-policy.js';
import type { RunStore } from './run-store.js';
import type { TaskService } from '../tasks/task-service.js';

/** Where the checks read runs and tasks: the root store, or the transaction a caller is in (so it sees that transaction's rows). */
export interface AuthorityReads {
  readonly runs: Pick<RunStore, 'active'>;
  readonly tasks: Pick<TaskService, 'get' | 'list'>;
}

/**
 * Who may act on work already under way: answer a question, decide an approval, stop a run. The
 * access policy says who may use Errand at all; this says whose work it is.
 */
export interface Authority {
  /**
   * The run's principal (named on the question as its asker or approver), or an admin. Nobody named (work older
   * than principals): anyone may answer a question, and with access rules only an admin may decide an approval.
   */
  mayAnswer(question: PendingQuestion | null | undefined, person: Person): boolean;
  /** With access rules: the principal of the conversation's active run, or an admin. Without: anyone, as before. */
  mayStop(conversationId: string, person: Person, reads?: AuthorityReads): Promise<boolean>;
  /** With access rules: the task's principal, or an admin (only an admin when it names nobody). */
  mayStopTask(requestedBy: string | null, person: Person): boolean;
  /** `stop all`: as mayStop, and with access rules every queued to-do there is the person's own (or they are an admin). */
  mayStopAll(conversationId: string, person: Person, reads?: AuthorityReads): Promise<boolean>;
}

export function createAuthority(deps: { access: AccessPolicy; runs: RunStore; tasks: TaskService }): Authority {
  return {
    mayAnswer(question, person) {
      const owner = question?.userId ?? null;
      if (owner === null) return !question?.approval || !deps.access.configured || deps.access.isAdmin(person);
      return owner === person.userId || deps.access.isAdmin(person);
    },
    mayStopTask(requestedBy, person) {
      return !deps.access.configured || requestedBy === person.userId || deps.access.isAdmin(person);
    },
    async mayStop(conversationId, person, reads = deps) {
      if (!deps.access.configured) return true;
      const run = await reads.runs.active(conversationId);
      if (!run) return true;
      const principal =
        run.principal ?? (run.taskId !== null ? ((await reads.tasks.get(run.taskId))?.requestedBy ?? null) : null);
      return this.mayStopTask(principal, person);
    },
    async mayStopAll(conversationId, person, reads = deps) {
      if (!(await this.mayStop(conversationId, person, reads))) return false;
      return (await reads.tasks.list(conversationId)).every(
        (t) => t.status !== 'pending' || this.mayStopTask(t.requestedBy, person),
      );
    },
  };
}
