import type { PendingQuestion, RunRow, RunStatus } from '../db/schema.js';
import type { RunFence } from './run-fence.js';
import type { NextAsk, RunEnd, RunEndAnswer, SettledNext } from './run-end.js';

export const ACTIVE_RUN_STATUSES: readonly RunStatus[] = ['running', 'waiting_user'];

/** The statuses a run ends in; `park`/`unpark` move between the active ones. */
export type FinalRunStatus = Exclude<RunStatus, 'running' | 'waiting_user'>;

/** What a scheduled run's end means for its schedule: a success resets its failure count, a failure adds one. */
export type ScheduleRunResult = { ok: true } | { ok: false; reason: string };

/** Whom a run acts for, as stored with it: a platform user id (the conversation gives the platform) and their roles then. */
export interface StoredPrincipal {
  readonly userId: string;
  readonly roles?: readonly string[] | null;
}

/** Persistence of runs. Status changes are conditional (`from`), so racing writers cannot overwrite a final state. */
export interface RunStore {
  /**
   * Starts a run acting for `principal` (its task's; null only for a task that names nobody); rejects with
   * ConversationBusyError when the conversation already has an active one.
   */
  create(conversationId: string, taskId: number | null, principal?: StoredPrincipal | null): Promise<RunRow>;
  get(id: string): Promise<RunRow | null>;
  /** The conversation's running or waiting run, if any. */
  active(conversationId: string): Promise<RunRow | null>;
  /** Ends a run: moves it from one of `from` to a final status; false when it was no longer in `from`. */
  transition(
    id: string,
    from: readonly RunStatus[],
    to: FinalRunStatus,
    fields?: Partial<Pick<RunRow, 'summary' | 'error'>>,
  ): Promise<boolean>;
  /**
   * Parks a run on `question` until `expiresAt`: from `running` (the run asks), or `from` `interrupted` (recovery
   * parks a run whose call died waiting on an MCP server's question). False when the run was not in `from`.
   */
  park(id: string, question: PendingQuestion, expiresAt: number, from?: 'running' | 'interrupted'): Promise<boolean>;
  /** Records the platform id of the posted question of a waiting run. */
  setQuestionMessage(id: string, messageId: string): Promise<void>;
  /**
   * Keeps an answer with a waiting run that cannot resume yet (no free slot, or shutting down) and makes
   * it due at once, so the next free slot or start-up resumes it. False when the run was not waiting.
   * With `questionId` (a click on a question's button) only the first answer to that very question is
   * kept: false when the run waits on another question, or this one has an answer already.
   */
  recordAnswer(id: string, answer: NonNullable<PendingQuestion['answer']>, questionId?: string): Promise<boolean>;
  /** Takes a waiting run back to running; returns its question, or null when it was not waiting. */
  unpark(id: string): Promise<PendingQuestion | null>;
  /** Counts one model step of the run (in the transaction that records the step); returns the run's steps so far. */
  countStep(id: string): Promise<number>;
  /**
   * Runs that were `running` (the process died under them): marked interrupted, returned. On a shared
   * database only those of this process or whose lease ran out: other processes' live runs are theirs.
   */
  interruptAllRunning(): Promise<RunRow[]>;
  /** Waiting runs due to resume: their question expired, or an answer is recorded for them. */
  expiredQuestions(limit: number): Promise<RunRow[]>;
  /**
   * The runs acting for `principal` (a platform user id) that wait on a question, in conversations of `platform`,
   * at most `limit`: what a person's sign-in may end besides the wait its link was made for.
   */
  waitingFor(platform: string, principal: string, limit: number): Promise<RunRow[]>;
  /**
   * The run's owner and lease generation as stored. Read it in the transaction that claimed the run
   * (`create`, `unpark`): that is the fence the execution carries. Rejects when there is no such run.
   */
  fence(id: string): Promise<RunFence>;
  /**
   * Inside a transaction: whether `fence` still holds the run (same owner, same generation), locking the
   * run's row until the transaction ends, so no takeover can slip in before the transaction's writes
   * commit. Every write of an executing run starts with it (runs/runtime/fenced-run-writes.ts). Always true on
   * SQLite, where one process holds the database.
   */
  holds(fence: RunFence): Promise<boolean>;
  /**
   * Optional (PostgreSQL): `holds(fence)` for the write about to start in this transaction, folded into
   * that write's first statement when it is `countStep` or `transition` of the fence's run (the update
   * checks the owner and generation and locks the row, as `holds` does), else sent right behind it. Call
   * it, start the write, then call the function it returns: it resolves with whether the fence held.
   */
  expectFence?(fence: RunFence): () => Promise<boolean>;
  /**
   * Optional (PostgreSQL): a run's end in one call, as the settling transaction writes it (the fenced transition,
   * the conversation's lock, the task's finish while in progress, its conversation's `blocked` flags), each
   * statement reading what committed before it. Absent: the settler writes it in a transaction of its own.
   */
  settle?(fence: RunFence, end: RunEnd): Promise<RunEndAnswer>;
  /**
   * Optional (PostgreSQL): `settle`, then in the same call, when the run settled, the pump's look for due work and
   * the claim of the first ready conversation's next task for this process (the run's own conversation first), so
   * the run's slot passes to the claimed run (issue 40). Nothing is claimed while a waiting run is due to resume.
   */
  settleNext?(fence: RunFence, end: RunEnd, ask: NextAsk): Promise<SettledNext>;
}
