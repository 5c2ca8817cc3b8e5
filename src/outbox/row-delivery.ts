import type { Delivery } from '../chat/delivery.js';
import type { OutboundButton } from '../chat/outbound-button.js';
import type { OutboundMessage } from '../chat/outbound-message.js';
import { parsePrivateAnswerActionId } from '../chat/private-answers.js';
import type { ConversationRef } from '../chat/conversation-ref.js';
import type { Clock } from '../clock.js';
import { isTargetGone } from '../errors.js';
import type { Logger } from '../logger.js';
import { idempotencyKeyOf } from './idempotency-key.js';
import { countAttempt, uncounted } from './attempt-count.js';
import type { OutboxClaim, OutboxStore, PendingPost } from '../store/outbox-store.js';
import type { OutboxFileStore } from '../store/outbox-file-store.js';
import { postFileRow, UndeliverableFiles } from './file-delivery.js';
import type { PostWaiters } from './post-waiters.js';
import { retractPreview } from './preview-retraction.js';
import { deliverSecretNotice } from './secret-notice.js';
import { deliverPrivateChoice, deliverPrivateFiles, deliverPrivateQuestion } from './private-choice.js';
import type { PrivateAnswerStore } from '../privacy/private-answer-store.js';
import type { StreamedAnswer, StreamedAnswers } from './streamed-answers.js';
import { errorTypeOf, type ActiveSpan } from '../telemetry/tracing.js';

export interface RowDeliveryDeps {
  readonly store: OutboxStore;
  /** The bytes of `files` rows. */
  readonly files?: OutboxFileStore | undefined;
  /** The bytes of files held for their owner, shown with the notice whose buttons decide them. */
  readonly heldFiles?: Pick<PrivateAnswerStore, 'filesOf'> | undefined;
  readonly adapters: ReadonlyMap<string, Delivery>;
  refOf(conversationId: string): ConversationRef | null;
  readonly clock: Clock;
  readonly logger: Logger;
  /** A question or approval was posted: its run records the message id (buttons live on it). */
  onQuestionPosted(runId: string, platformMessageId: string): Promise<void>;
  /** Tries before a row that keeps failing is given up (default 5). */
  readonly maxAttempts?: number | undefined;
  /** Wait before try `attempts + 1` after a transient failure (default 1 s, doubling, at most 30 s). */
  backoffMs?(attempts: number): number;
  readonly waiters: PostWaiters;
  readonly streamed: StreamedAnswers;
}

/**
 * The claim of the poster's turn, lent to a delivery so the write that settles a streamed answer can also give the
 * claim up when nothing else is pending (`OutboxClaim.markStreamedReleasing`): `released` is true when it was given
 * up, false when it was kept because a row is pending, undefined when no such write was made.
 */
export interface TurnClaim {
  readonly claim: OutboxClaim;
  released: boolean | undefined;
}

/**
 * Delivers one due outbox row: a post, the finish of its streamed preview, or the retraction of an
 * interrupted preview, then marks it posted, retries it later, or fails it. The poster decides which
 * row is due and holds the claim; this decides what happens to the row.
 */
export class RowDelivery {
  /** The spans of the rows being delivered in one (traces on): a failure marks its row's. */
  private readonly spans = new Map<PendingPost['id'], ActiveSpan>();

  constructor(private readonly deps: RowDeliveryDeps) {}

  /** `deliver`, in the delivery's span: a failure marks it (handed over, not looked up: it is no active span). */
  async deliverIn(row: PendingPost, span: ActiveSpan, turn?: TurnClaim): Promise<void> {
    this.spans.set(row.id, span);
    try {
      await this.deliver(row, turn);
    } finally {
      this.spans.delete(row.id);
    }
  }

  /**
   * A row tried before (a crash or a failure after the request left) is first looked up on the
   * platform where the adapter can (`findPosted`); Discord's nonce makes a second post return the first.
   */
  async deliver(row: PendingPost, turn?: TurnClaim): Promise<void> {
    const { store, logger } = this.deps;
    const ref = this.deps.refOf(row.conversationId);
    const adapter = ref ? this.deps.adapters.get(ref.platform) : undefined;
    if (!ref || !adapter) {
      await store.markFailed(row.id, 'no adapter for this conversation');
      logger.error({ conversationId: row.conversationId, outboxId: row.id }, 'no adapter for an outbox row; failed it');
      return this.deps.waiters.settle(row.id, { kind: 'failed', error: new Error('no adapter for this conversation') });
    }
    if (row.purpose === 'retract') {
      return retractPreview(row, ref, adapter, {
        store,
        logger,
        nothingToRetract: (r) => this.deps.waiters.settle(r.id, { kind: 'posted', platformMessageId: '' }),
        posted: (r, id) => this.posted(r, id),
        failed: (r, err) => this.failed(r, err),
      });
    }
    if (row.purpose === 'edit' || row.purpose === 'ephemeral') return this.change(row, ref, adapter);
    if (row.purpose === 'files') return this.postFiles(row, ref, adapter);
    if ((row.purpose === 'question' || row.purpose === 'approval') && row.payload.visibleTo !== undefined)
      return this.askPrivately(row, ref, adapter, row.payload.visibleTo);
    const streamed = this.deps.streamed.get(row.id);
    if (streamed) return this.finishStream(row, streamed, turn);
    const key = idempotencyKeyOf(row.id);
    try {
      const lookup = adapter.capabilities.postedLookup;
      if (row.attempts > 0 && lookup) {
        const found = (await lookup.findPosted(ref, [key])).get(key);
        if (found !== undefined) {
          logger.info(
            { outboxId: row.id, platformMessageId: found },
            'an earlier try of this post had reached the platform; adopted it',
          );
          return await this.posted(row, found);
        }
      }
      await countAttempt(store, row);
      const posted = await adapter.postMessage(ref, { ...row.payload, idempotencyKey: key });
      await this.posted(row, posted.id);
    } catch (err) {
      await this.failed(row, err);
    }
  }

  /**
   * An edit of a posted message, or a notice only one person sees. Neither can be looked up on the
   * platform before a second try, and neither needs to be: an edit made twice shows the same text, and a
   * private notice is at worst shown twice to its one reader (a crash within that round trip). A failure
   * is not tried again: the adapter has already waited out what passes (rate limits, its own retries), so
   * what is left is mostly a message that is gone, and the conversation's posts must not wait behind it.
   */
  private async change(row: PendingPost, ref: ConversationRef, adapter: Delivery): Promise<void> {
    const { text, buttons, editOf, visibleTo } = row.payload;
    const target = row.purpose === 'edit' ? editOf : visibleTo;
    if (target === undefined) {
      const error = new Error(`an ${row.purpose} row without its ${row.purpose === 'edit' ? 'message' : 'reader'}`);
      await this.deps.store.markFailed(row.id, error.message);
      this.deps.logger.error({ outboxId: row.id }, 'a malformed outbox row; failed it');
      return this.deps.waiters.settle(row.id, { kind: 'failed', error });
    }
    try {
      await countAttempt(this.deps.store, row);
      if (row.purpose === 'edit') await adapter.editMessage(ref, target, { text, ...(buttons ? { buttons } : {}) });
      else if (row.payload.secret)
        await (buttons
          ? this.showHeld(adapter, ref, target, { text, buttons })
          : deliverSecretNotice(adapter, ref, target, text));
      else await adapter.postEphemeral(ref, target, text);
      await this.posted(row, row.purpose === 'edit' ? target : '');
    } catch (err) {
      this.spans.get(row.id)?.fail(errorTypeOf(err));
      if (isTargetGone(err)) return this.failed(row, err);
      this.deps.logger.warn(
        { err, outboxId: row.id, purpose: row.purpose },
        row.purpose === 'edit' ? 'editing a posted message failed' : 'posting a private notice failed',
      );
      await this.deps.store.markFailed(row.id, err instanceof Error ? err.message : String(err));
      this.deps.waiters.settle(row.id, { kind: 'failed', error: err });
    }
  }

  /**
   * A notice with buttons to its owner alone: a held post's Share in thread / Keep private. Held files (a post of
   * purpose `files`, held-posts.ts) go with it, found by the held post its buttons decide; anything else goes alone.
   */
  private async showHeld(
    adapter: Delivery,
    ref: ConversationRef,
    userId: string,
    message: OutboundMessage & { buttons: readonly OutboundButton[] },
  ): Promise<void> {
    const held = message.buttons.map((b) => parsePrivateAnswerActionId(b.actionId)).find((h) => h !== null);
    const files = held && this.deps.heldFiles ? await this.deps.heldFiles.filesOf(held.answerId) : [];
    return files.length > 0
      ? deliverPrivateFiles(adapter, ref, userId, message, files)
      : deliverPrivateChoice(adapter, ref, userId, message);
  }

  /**
   * A question or approval of a run holding its principal's private material, to them alone (private-choice.ts); its
   * buttons answer it from there. No message id is recorded for the run: nothing in the conversation is edited for it.
   * A transient failure is tried again like a post, since the run waits on the question.
   */
  private async askPrivately(row: PendingPost, ref: ConversationRef, adapter: Delivery, userId: string): Promise<void> {
    try {
      await countAttempt(this.deps.store, row);
      const { text, buttons, mentionUserId } = row.payload;
      await deliverPrivateQuestion(
        adapter,
        ref,
        userId,
        { text, ...(buttons ? { buttons } : {}) },
        { approval: row.purpose === 'approval', first: mentionUserId !== undefined },
      );
      await this.posted(row, '');
    } catch (err) {
      await this.failed(row, err);
    }
  }

  /** A message of files: posted once (see file-delivery.ts), its bytes deleted once it is settled. */
  private async postFiles(row: PendingPost, ref: ConversationRef, adapter: Delivery): Promise<void> {
    try {
      await this.posted(row, await postFileRow(row, ref, adapter, this.deps.store, this.deps.files));
    } catch (err) {
      if (!(err instanceof UndeliverableFiles)) return this.failed(row, err);
      this.spans.get(row.id)?.fail(errorTypeOf(err));
      this.deps.logger.error({ err, outboxId: row.id }, 'a post of files cannot be delivered; failed it');
      await this.deps.store.markFailed(row.id, err.message);
      await this.release(row);
      this.deps.waiters.settle(row.id, { kind: 'failed', error: err });
    }
  }

  /** A settled `files` row's bytes are deleted; the row keeps the record. */
  private async release(row: PendingPost): Promise<void> {
    if (row.purpose !== 'files' || !this.deps.files) return;
    await this.deps.files
      .release(row.id)
      .catch((err: unknown) =>
        this.deps.logger.warn(
          { err, outboxId: row.id },
          'deleting the files of a settled post failed; the next start deletes them',
        ),
      );
  }

  /** Delivers an answer's rows by finishing its preview; a preview that was stopped meanwhile leaves them to be posted. */
  private async finishStream(row: PendingPost, answer: StreamedAnswer, turn?: TurnClaim): Promise<void> {
    const first = answer.rows[0];
    if (first?.id !== row.id || first.text !== row.payload.text) {
      // Not the answer this preview was opened for (or not from its start): post as usual.
      this.deps.streamed.forget(answer);
      return this.deliver(row);
    }
    try {
      await countAttempt(this.deps.store, row);
      const ids = await answer.stream.finish(
        answer.text,
        answer.rows.map((r) => r.text),
      );
      // Discarded at shutdown while it finished: its preview is taken back, its rows stay pending for the next start.
      if (this.deps.streamed.wasDiscarded(answer)) return;
      this.deps.streamed.forget(answer);
      if (ids.length !== answer.rows.length) return this.deliver(uncounted(row));
      // One write: the rows are posted and the run's preview records settled, so a crash cannot leave the answer to be taken back.
      const posted = answer.rows.map((r, i) => ({ id: r.id, platformMessageId: ids[i]! }));
      const releasing = turn?.claim.markStreamedReleasing;
      if (turn && releasing) turn.released = await releasing.call(turn.claim, row.runId, posted);
      else await this.deps.store.markStreamed(row.runId, posted);
      for (const [i, r] of answer.rows.entries())
        this.deps.waiters.settle(r.id, { kind: 'posted', platformMessageId: ids[i]! });
    } catch (err) {
      await this.failed(row, err);
    }
  }

  private async posted(row: PendingPost, platformMessageId: string): Promise<void> {
    if (!(await this.deps.store.markPosted(row.id, platformMessageId))) return;
    if ((row.purpose === 'question' || row.purpose === 'approval') && row.runId !== null && platformMessageId !== '')
      await this.deps.onQuestionPosted(row.runId, platformMessageId);
    this.deps.waiters.settle(row.id, { kind: 'posted', platformMessageId });
    await this.release(row);
  }

  /** Transient failures wait and retry; a gone target fails every pending row of the conversation. */
  private async failed(row: PendingPost, err: unknown): Promise<void> {
    const { store, logger, clock, waiters, streamed } = this.deps;
    this.spans.get(row.id)?.fail(errorTypeOf(err));
    const reason = err instanceof Error ? err.message : String(err);
    if (isTargetGone(err)) {
      logger.warn(
        { err, conversationId: row.conversationId },
        'the conversation can no longer be posted to; its pending posts are dropped',
      );
      for (const id of await store.failConversation(row.conversationId, reason)) {
        streamed.stop(id);
        waiters.settle(id, { kind: 'failed', error: err });
      }
      if (this.deps.files)
        await this.deps.files
          .releaseSettled()
          .catch((e: unknown) =>
            logger.warn({ err: e }, 'deleting the files of failed posts failed; the next start deletes them'),
          );
      return;
    }
    const attempts = row.attempts + 1;
    if (attempts >= (this.deps.maxAttempts ?? 5)) {
      logger.error({ err, outboxId: row.id, attempts }, 'posting failed; giving up on this message');
      streamed.stop(row.id);
      await store.markFailed(row.id, reason);
      await this.release(row);
      return waiters.settle(row.id, { kind: 'failed', error: err });
    }
    const delay = this.deps.backoffMs?.(attempts) ?? Math.min(30_000, 1000 * 2 ** (attempts - 1));
    logger.warn({ err, outboxId: row.id, attempts, retryInMs: delay }, 'posting failed; will retry');
    await store.defer(row.id, clock.now() + delay, reason);
  }
}
