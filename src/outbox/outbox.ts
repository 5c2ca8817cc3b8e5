import type { PostIntent, PostTicket, RunPosts } from '../agent/agent-types.js';
import type { AnswerStream } from '../chat/chat-adapter.js';
import type { Delivery } from '../chat/delivery.js';
import type { ConversationRef } from '../chat/conversation-ref.js';
import type { OutboundFile } from '../chat/file-posts.js';
import type { Clock } from '../clock.js';
import type { OutboxPayload } from '../db/schema.js';
import { isTargetGone } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/store.js';
import type { PreviewMessageSlot } from '../chat/chat-adapter.js';
import type { RunFence } from '../run-records/run-fence.js';
import { idempotencyKeyOf, OutboxPoster, type OutboxPosterDeps } from './outbox-poster.js';
import type { OutboxStore } from '../store/outbox-store.js';
import { toPieces } from './post-pieces.js';
import { splitText } from '../chat/split-text.js';
import { INTERRUPTED_PREVIEW_MARK } from './preview-retraction.js';
import { recordHeld, recordHeldFiles, type HeldFilesIntent, type HeldIntent } from './held-posts.js';
import { fencedAnswerWrite } from './answer-write.js';

/** Delivered (and failed) rows are kept this long for the record, then deleted at the next start. */
export const OUTBOX_RETENTION_MS = 7 * 24 * 60 * 60_000;

/** Shown instead of an interrupted run's unfinished preview where the platform refuses to delete it. */
export { INTERRUPTED_PREVIEW_MARK };

/** Used when no adapter is connected for a conversation's platform (its rows fail at delivery anyway). */
const fallbackRender = (text: string) => splitText(text, 2000);

/**
 * Changes to what is already on the platform, and notices only one person sees: recorded durably like
 * posts and delivered by the poster in order with the conversation's other rows, so the runtime never
 * calls the adapter to write (the presence port carries only status, see src/chat/presence.ts).
 */
export interface OutboxChanges {
  /**
   * Records an edit of a posted message: its text becomes `text`, its buttons go. With `tx` it commits
   * with the write that decided it (a resume's claim), so it is made exactly when that write is.
   */
  recordEdit(conversationId: string, runId: string | null, messageId: string, text: string, tx?: Store): Promise<void>;
  /** Records a notice only `userId` sees (a normal post where the platform has no such notices). */
  recordEphemeral(conversationId: string, userId: string, text: string, tx?: Store): Promise<void>;
  /**
   * Records a notice only `userId` may ever read (a sign-in link): private where the platform's notices are, else a
   * direct message (see secret-notice.ts); never a post others can read.
   */
  recordSecret(conversationId: string, userId: string, text: string): Promise<void>;
  /** The platform messages a post becomes in this conversation, exactly as `record` cuts it (what an edit of its last message keeps). */
  piecesOf(conversationId: string, intent: PostIntent): readonly OutboxPayload[];
}

/** Every message Errand posts into a conversation goes through here: recorded durably, then delivered in order. */
export interface Outbox extends RunPosts, OutboxChanges {
  readonly store: OutboxStore;
  /**
   * Records one message of files (an outbox row of purpose `files`, the bytes kept beside it until it is settled),
   * delivered in order with the conversation's other rows through the adapter's `files` capability. With `tx` it
   * belongs to that write. The files must be within the platform's limits (see files-out.ts).
   */
  recordFiles(
    conversationId: string,
    runId: string | null,
    files: readonly OutboundFile[],
    tx?: Store,
  ): Promise<PostTicket>;
  /**
   * Records files built on `held.owner`'s private material in a conversation others read (DESIGN.md "Private stays
   * private in a shared thread"): kept for their choice and shown to them alone first, with Share in thread / Keep
   * private (see held-posts.ts). With `tx` it belongs to that write.
   */
  recordHeldFiles(conversationId: string, runId: string | null, held: HeldFilesIntent, tx?: Store): Promise<PostTicket>;
  /** Stop means stop: the stopped run's answers and updates not posted yet are dropped. Returns how many. */
  dropUnsent(runId: string): Promise<number>;
  /** Starts delivering, beginning with what was left pending before this start (adapters connected). */
  start(): Promise<void>;
  /** Stops taking rows; waits up to `graceMs` for the posts in flight; the rest waits for the next start. */
  stop(graceMs: number): Promise<void>;
  /** Resolves once everything due now is posted (or failed); rows waiting for a later try stay pending. */
  idle(): Promise<void>;
}

export interface OutboxDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  adapters: ReadonlyMap<string, Delivery>;
  refOf(conversationId: string): ConversationRef | null;
  onQuestionPosted(runId: string, platformMessageId: string): Promise<void>;
  backoffMs?: OutboxPosterDeps['backoffMs'];
  sweepEveryMs?: OutboxPosterDeps['sweepEveryMs'];
  tracing?: OutboxPosterDeps['tracing'];
}

export function createOutbox(deps: OutboxDeps): Outbox {
  const store = deps.store.outbox;
  const poster = new OutboxPoster({
    ...deps,
    store,
    files: deps.store.outboxFiles,
    heldFiles: deps.store.privateAnswers,
  });
  const piecesOf = (conversationId: string, intent: PostIntent): OutboxPayload[] => {
    const ref = deps.refOf(conversationId);
    const delivery = ref ? deps.adapters.get(ref.platform) : undefined;
    return toPieces(intent, delivery ? (text, mention) => delivery.render(text, mention) : fallbackRender);
  };
  const addFencedPreview = store.addFencedPreview?.bind(store);
  /** A preview message's slot once `add` recorded its row (null: refused, nothing to fill in). */
  const previewSlot = async (
    conversationId: string,
    runId: string,
    add: () => Promise<number | null>,
  ): Promise<PreviewMessageSlot> => {
    try {
      const id = await add();
      return {
        key: id === null ? null : idempotencyKeyOf(id),
        // Not awaited: on PostgreSQL the id travels with the process's next statement (pg-deferred-writes.ts), and
        // the stream need not wait for it; the row is found by time and the known ids until then.
        posted: (platformMessageId) => {
          if (id !== null)
            void store
              .setPreviewMessage(id, platformMessageId)
              .catch((err: unknown) =>
                deps.logger.warn({ err, conversationId, runId }, 'recording an answer preview message failed'),
              );
          return Promise.resolve();
        },
      };
    } catch (err) {
      // The preview goes on: only a crash before its answer is finished would leave this message behind.
      deps.logger.warn({ err, conversationId, runId }, 'recording an answer preview message failed');
      return {
        key: null,
        posted: (platformMessageId) =>
          store
            .addPreview(conversationId, runId, platformMessageId)
            .then(() => undefined)
            .catch((e: unknown) =>
              deps.logger.warn({ err: e, conversationId, runId }, 'recording an answer preview message failed'),
            ),
      };
    }
  };
  const abortedWait = (signal: AbortSignal) =>
    new Promise<null>((resolve) => {
      if (signal.aborted) resolve(null);
      else signal.addEventListener('abort', () => resolve(null), { once: true });
    });
  return {
    store,
    atomically: (write) => deps.store.atomically(write),
    async record(
      conversationId: string,
      runId: string | null,
      intent: PostIntent,
      tx: Store = deps.store,
      stream?: AnswerStream,
    ): Promise<PostTicket> {
      if (intent.heldFor) {
        const held = await recordHeld(tx, conversationId, runId, intent as HeldIntent, (cut) =>
          piecesOf(conversationId, cut),
        );
        tx.afterCommit(() => poster.kick(conversationId));
        return held;
      }
      // A private run's question or approval: each piece to its person alone (delivered as such, row-delivery.ts).
      const shownTo = intent.shownTo;
      const pieces = shownTo
        ? piecesOf(conversationId, intent).map((p) => ({ ...p, visibleTo: shownTo, secret: true }))
        : piecesOf(conversationId, intent);
      const ids = await tx.outbox.add(conversationId, runId, intent.purpose, pieces);
      // After the caller's transaction has committed: the worker reads the rows from the database.
      if (ids.length > 0) {
        tx.afterCommit(() => {
          // Registered only once the rows exist for good: a rolled-back answer leaves no preview claim behind.
          if (stream)
            poster.viaStream(
              ids.map((id, i) => ({ id, text: pieces[i]!.text })),
              intent.text,
              stream,
              runId,
            );
          poster.kick(conversationId, ids);
        });
      }
      return ids;
    },
    async recordFiles(conversationId, runId, files, tx = deps.store) {
      const ids = await tx.outbox.add(conversationId, runId, 'files', [{ text: '' }]);
      await tx.outboxFiles.add(ids[0]!, files);
      tx.afterCommit(() => poster.kick(conversationId));
      return ids;
    },
    async recordHeldFiles(conversationId, runId, held, tx = deps.store) {
      const ids = await recordHeldFiles(tx, conversationId, runId, held, (cut) => piecesOf(conversationId, cut));
      tx.afterCommit(() => poster.kick(conversationId));
      return ids;
    },
    async recordEdit(conversationId, runId, messageId, text, tx = deps.store) {
      await tx.outbox.add(conversationId, runId, 'edit', [{ text, editOf: messageId }]);
      tx.afterCommit(() => poster.kick(conversationId));
    },
    async recordEphemeral(conversationId, userId, text, tx = deps.store) {
      await tx.outbox.add(conversationId, null, 'ephemeral', [{ text, visibleTo: userId }]);
      tx.afterCommit(() => poster.kick(conversationId));
    },
    async recordSecret(conversationId, userId, text) {
      await deps.store.outbox.add(conversationId, null, 'ephemeral', [{ text, visibleTo: userId, secret: true }]);
      deps.store.afterCommit(() => poster.kick(conversationId));
    },
    piecesOf,
    async delivered(ticket, signal) {
      const last = ticket.at(-1);
      if (last === undefined) return null;
      const settled = poster.settled(last).then((s) => {
        if (s.kind === 'posted') return s.platformMessageId;
        if (s.kind === 'failed' && isTargetGone(s.error)) throw s.error;
        return null;
      });
      // The wait may be abandoned (abort) before a gone target rejects it: never an unhandled rejection.
      settled.catch(() => undefined);
      return signal ? Promise.race([settled, abortedWait(signal)]) : settled;
    },
    async recordPreview(conversationId, runId, tx) {
      return previewSlot(conversationId, runId, () => (tx?.outbox ?? store).addPreview(conversationId, runId, null));
    },
    ...(addFencedPreview
      ? {
          async recordFencedPreview(conversationId: string, fence: RunFence) {
            let refused = false;
            const slot = await previewSlot(conversationId, fence.runId, async () => {
              const id = await addFencedPreview(conversationId, fence);
              refused = id === null;
              return id;
            });
            return refused ? null : slot;
          },
        }
      : {}),
    // Where the store writes an answer in one statement (PostgreSQL): its rows handed on as `record` hands them on.
    ...(store.addFencedAnswer ? { writeFencedAnswer: fencedAnswerWrite(store, poster, piecesOf) } : {}),
    async retractPreviews(runId, tx = deps.store) {
      const conversations = await tx.outbox.retractPreviews(runId, INTERRUPTED_PREVIEW_MARK);
      tx.afterCommit(() => conversations.forEach((id) => poster.kick(id)));
      return conversations.length;
    },
    async dropUnsent(runId) {
      const ids = await store.dropUnsent(runId);
      poster.dropped(ids);
      return ids.length;
    },
    async start() {
      const pruned = await store.prune(deps.clock.now() - OUTBOX_RETENTION_MS);
      if (pruned > 0) deps.logger.debug({ pruned }, 'old outbox rows deleted');
      // Files of posts settled by a path that did not delete them (a conversation gone, a crash in between).
      await deps.store.outboxFiles.releaseSettled();
      await poster.start();
    },
    stop: (graceMs) => poster.stop(graceMs),
    idle: () => poster.idle(),
  };
}
