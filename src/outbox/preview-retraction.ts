import type { Delivery } from '../chat/delivery.js';
import type { ConversationRef } from '../chat/conversation-ref.js';
import type { Logger } from '../logger.js';
import { idempotencyKeyOf } from './idempotency-key.js';
import { countAttempt } from './attempt-count.js';
import type { OutboxStore, PendingPost } from '../store/outbox-store.js';

/** Shown instead of an interrupted run's unfinished preview where the platform refuses to delete it. */
export const INTERRUPTED_PREVIEW_MARK = '(interrupted — answering again below)';

/** How far the platform's clock may be behind Errand's when a preview message is looked for by time. */
const CLOCK_SKEW_MS = 5_000;

/** What a retraction needs from the rest of delivery: the store, and how a row is settled either way. */
export interface RetractionDeps {
  readonly store: Pick<OutboxStore, 'countAttempt' | 'state' | 'markNothingToRetract' | 'previewProbe'>;
  readonly logger: Logger;
  /** The row is done with nothing to take back. */
  readonly nothingToRetract: (row: PendingPost) => void;
  readonly posted: (row: PendingPost, platformMessageId: string) => Promise<void>;
  readonly failed: (row: PendingPost, err: unknown) => Promise<void>;
}

/**
 * Takes back the unfinished preview message of an interrupted run (`platform_message_id` of the row):
 * deleted where the platform allows it (one already gone counts as deleted), else edited to the row's
 * mark. A row without an id was written before its post left and the process never heard back: the
 * message is looked for on the platform first, and when there is none the row is settled with nothing
 * to take back. Failures retry like posts; the row is marked posted once done, so it is done once.
 */
export async function retractPreview(
  row: PendingPost,
  ref: ConversationRef,
  adapter: Delivery,
  deps: RetractionDeps,
): Promise<void> {
  const { store, logger } = deps;
  try {
    await countAttempt(store, row);
    const target = (await store.state(row.id))?.platformMessageId ?? (await findUnrecorded(row, ref, adapter, store));
    if (target === null) {
      await store.markNothingToRetract(row.id);
      logger.info(
        { outboxId: row.id },
        'an interrupted answer preview never reached the platform; nothing to take back',
      );
      return deps.nothingToRetract(row);
    }
    const deleted = adapter.capabilities.delete ? await adapter.capabilities.delete.deleteMessage(ref, target) : false;
    if (!deleted) await adapter.editMessage(ref, target, { text: row.payload.text });
    logger.info({ outboxId: row.id, platformMessageId: target, deleted }, 'took back an interrupted answer preview');
    await deps.posted(row, target);
  } catch (err) {
    await deps.failed(row, err);
  }
}

/** The message of a preview row whose post never got its answer, as the platform has it; null when it has none. */
async function findUnrecorded(
  row: PendingPost,
  ref: ConversationRef,
  adapter: Delivery,
  store: Pick<OutboxStore, 'previewProbe'>,
): Promise<string | null> {
  const lookup = adapter.capabilities.previewLookup;
  if (!lookup) return null;
  const probe = await store.previewProbe(row.id, CLOCK_SKEW_MS);
  if (!probe) return null;
  return lookup.findUnrecordedPreview(ref, {
    key: idempotencyKeyOf(row.id),
    since: probe.since - CLOCK_SKEW_MS,
    until: probe.until,
    known: new Set(probe.known),
    text: row.payload.text,
  });
}
