import type { ElicitationOutcome } from '../../agent/elicitation-wait.js';
import type { PendingQuestion, RunRow } from '../../db/schema.js';
import type { Logger } from '../../logger.js';
import type { OutboxChanges } from '../../outbox/outbox.js';
import type { Store } from '../../store/store.js';

/**
 * What a run's resume and restart recovery ask of the questions feature (src/questions/) inside their own
 * transactions: an MCP server's question a run waits on across a restart. A port, so the runtime imports nothing of
 * the feature; required where it is held, so the compiler makes every caller wire it.
 */
export interface CarriedQuestions {
  /**
   * Restart recovery: a run whose call died waiting on a question parks on that question instead (in `tx`).
   * False when its last call did not wait on one: recover the run as usual.
   */
  carryOver(tx: Store, run: RunRow, askTimeoutMs: number, logger: Logger): Promise<boolean>;
  /** A run's resume: a carried-over question's wait ended, so the question is settled and its post says how (in `tx`). */
  close(
    tx: Store,
    changes: Pick<OutboxChanges, 'recordEdit'>,
    run: RunRow,
    question: PendingQuestion,
    outcome: ElicitationOutcome,
    now: number,
  ): Promise<void>;
}
