import type { AnswerWrite, RunPosts } from '../../agent/agent-types.js';
import type { TranscriptStore } from '../../conversations/transcript-store.js';
import type { NextAsk, RunEnd, RunEndAnswer, SettledNext } from '../../run-records/run-end.js';
import { RunFencedError, type RunFence } from '../../run-records/run-fence.js';
import type { RunStore } from '../../run-records/run-store.js';
import type { Store } from '../../store/store.js';

/** What an executing run writes through: its posts, its transcript steps and its own row. */
export interface RunWrites {
  readonly posts: RunPosts;
  readonly transcript: TranscriptStore;
  readonly runs: RunStore;
  /**
   * Resolves while the run is still this execution's, rejects with RunFencedError once another process took it
   * over: asked right before each tool call, whose effects (a to-do, a memory, a schedule, an MCP server's write)
   * are not writes of the run and so not fenced by them. Absent: the run cannot be taken over (one process).
   */
  readonly confirmHeld?: () => Promise<void>;
  /**
   * Where the store records a run's end in one call (`RunStore.settle`, PostgreSQL): resolves with whether it was
   * recorded (false: the run was no longer in `from`), rejects with RunFencedError as the run's other writes do.
   * Absent: the settler writes the end in a transaction (`posts.atomically`).
   */
  readonly settle?: (end: RunEnd) => Promise<boolean>;
  /**
   * Where the store records a run's end and claims the next work in one call (`RunStore.settleNext`, PostgreSQL):
   * as `settle`, and what it claimed for this process (never when the run was not recorded).
   */
  readonly settleNext?: (end: RunEnd, ask: NextAsk) => Promise<Omit<SettledNext, 'answer'> & { applied: boolean }>;
}

/**
 * The writes of one executing run, each conditional on the run's fence: every transaction begins with
 * `RunStore.holds(fence)` (which locks the run's row until the commit; its answer is awaited before the commit), so a process that stalled past its
 * lease and lost the run to another cannot record a step, an answer, a question or the outbox rows they
 * make. A refused write rolls back and rejects with RunFencedError; `onRefused` is told once, at the
 * first refusal, to stop the run at once; later writes are refused without asking the database again.
 * Reads pass through. On SQLite every fence holds (one process), so this costs nothing there.
 */
export function fenceRunWrites(fence: RunFence, inner: RunWrites, onRefused: (err: RunFencedError) => void): RunWrites {
  let refused: RunFencedError | null = null;

  const refuse = (): RunFencedError => {
    // Writes begun together (a preview and the answer) may both be refused: the run is stopped once.
    if (!refused) {
      refused = new RunFencedError(fence);
      onRefused(refused);
    }
    return refused;
  };

  // The check's answer is awaited only before the commit. On PostgreSQL it is folded into the write's first
  // statement when that updates the run's row (`expectFence`), else sent right behind that statement on the
  // same connection without waiting (pipelined); the row lock it takes holds until the commit as before, and
  // a refusal rolls back whatever the write did. Elsewhere it is the transaction's first statement.
  const atomically = <T>(write: (tx: Store) => Promise<T>): Promise<T> =>
    inner.posts.atomically(async (tx) => {
      if (refused) throw refused;
      const expected = tx.runs.expectFence?.(fence);
      const started = expected ? write(tx) : null;
      const held = expected ? expected() : Promise.resolve(tx.runs.holds(fence));
      let result: T;
      try {
        result = await (started ?? write(tx));
      } catch (err) {
        if (!(await held.catch(() => true))) throw refuse();
        throw err;
      }
      if (!(await held)) throw refuse();
      return result;
    });

  /** A write the store checks against the fence in its own statement (PostgreSQL): no transaction; null: the fence failed. */
  const fencedStatement = async <T>(write: () => Promise<T | null>): Promise<T> => {
    if (refused) throw refused;
    const written = await write();
    if (!written) throw refuse();
    return written;
  };
  // Where the store writes a model answer in one statement that checks the fence (PostgreSQL).
  const writeFencedAnswer = inner.posts.writeFencedAnswer?.bind(inner.posts);
  const fencedAnswer = (answer: AnswerWrite, write: NonNullable<RunPosts['writeFencedAnswer']>) =>
    fencedStatement(() =>
      answer.runId === fence.runId
        ? write(answer, fence)
        : Promise.reject(new Error(`run ${fence.runId}'s writes cannot record run ${answer.runId}'s answer`)),
    );
  // Where the store checks the fence in the preview's own statement (PostgreSQL).
  const recordFencedPreview = inner.posts.recordFencedPreview?.bind(inner.posts);

  const posts: RunPosts = {
    atomically,
    // With a `tx` the post joins a write that began with the check; alone it is a write of its own.
    record: (conversationId, runId, intent, tx, stream) =>
      tx
        ? inner.posts.record(conversationId, runId, intent, tx, stream)
        : atomically((t) => inner.posts.record(conversationId, runId, intent, t, stream)),
    delivered: (ticket, signal) => inner.posts.delivered(ticket, signal),
    dropUnsent: (runId) => inner.posts.dropUnsent(runId),
    // A stale owner's preview is refused before it reaches the platform (the stream gives up on a rejection).
    recordPreview: (conversationId, runId, tx) =>
      tx
        ? inner.posts.recordPreview(conversationId, runId, tx)
        : recordFencedPreview && runId === fence.runId
          ? fencedStatement(() => recordFencedPreview(conversationId, fence))
          : atomically((t) => inner.posts.recordPreview(conversationId, runId, t)),
    retractPreviews: (runId, tx) => inner.posts.retractPreviews(runId, tx),
    ...(writeFencedAnswer ? { writeAnswer: (answer) => fencedAnswer(answer, writeFencedAnswer) } : {}),
  };

  const transcript: TranscriptStore = {
    append: (...args) => atomically((tx) => tx.transcript.append(...args)),
    recent: (...args) => inner.transcript.recent(...args),
    privateRows: (...args) => inner.transcript.privateRows(...args),
  };

  // Every argument passed on as given, so the wrapper follows the interface as it grows.
  const runs: RunStore = {
    ...inner.runs,
    transition: (...args) => atomically((tx) => tx.runs.transition(...args)),
    park: (...args) => atomically((tx) => tx.runs.park(...args)),
    setQuestionMessage: (...args) => atomically((tx) => tx.runs.setQuestionMessage(...args)),
    recordAnswer: (...args) => atomically((tx) => tx.runs.recordAnswer(...args)),
    unpark: (...args) => atomically((tx) => tx.runs.unpark(...args)),
    countStep: (...args) => atomically((tx) => tx.runs.countStep(...args)),
    // The run's end goes through `settle` below, which holds this fence; never around it with another.
    settle: undefined,
    settleNext: undefined,
  };

  /** A run's end the store checked against the fence in its own call: refused when fenced, else whether it applied. */
  const endApplied = (answer: RunEndAnswer): boolean => {
    if (answer === 'fenced') throw refuse();
    return answer === 'settled';
  };
  // Where the store checks the fence in the settlement's own call (PostgreSQL): one round trip, no transaction.
  const settleInStore = inner.runs.settle?.bind(inner.runs);
  const settle =
    settleInStore &&
    (async (end: RunEnd): Promise<boolean> => {
      if (refused) throw refused;
      return endApplied(await settleInStore(fence, end));
    });

  const settleNextInStore = inner.runs.settleNext?.bind(inner.runs);
  const settleNext =
    settleNextInStore &&
    (async (end: RunEnd, ask: NextAsk) => {
      if (refused) throw refused;
      const { answer, claimed, more } = await settleNextInStore(fence, end, ask);
      return { applied: endApplied(answer), claimed, more };
    });

  // A store that keeps no owners (SQLite: one process) cannot lose a run: nothing to ask.
  const confirmHeld = fence.owner === null ? undefined : () => atomically(async () => undefined);
  return {
    posts,
    transcript,
    runs,
    ...(confirmHeld ? { confirmHeld } : {}),
    ...(settle ? { settle } : {}),
    ...(settleNext ? { settleNext } : {}),
  };
}
