import type { AnswerStream, ChatAdapter } from '../chat/chat-adapter.js';
import type { ConversationRef } from '../chat/conversation-ref.js';
import type { Clock } from '../clock.js';
import { isTargetGone } from '../errors.js';
import type { Logger } from '../logger.js';
import type { OutboxClaim, OutboxStore, PendingPost } from '../store/outbox-store.js';

/** How one outbox row ended, for whoever waits on it. */
export type PostSettled =
  | { readonly kind: 'posted'; readonly platformMessageId: string }
  | { readonly kind: 'failed'; readonly error: unknown }
  /** The poster stopped (shutdown) with the row still pending: the next start posts it. */
  | { readonly kind: 'stopped' };

export interface OutboxPosterDeps {
  store: OutboxStore;
  adapters: ReadonlyMap<string, ChatAdapter>;
  refOf(conversationId: string): ConversationRef | null;
  clock: Clock;
  logger: Logger;
  /** A question or approval was posted: its run records the message id (buttons live on it). */
  onQuestionPosted(runId: string, platformMessageId: string): Promise<void>;
  /** Tries before a row that keeps failing is given up (default 5). */
  maxAttempts?: number;
  /** Wait before try `attempts + 1` after a transient failure (default 1 s, doubling, at most 30 s). */
  backoffMs?(attempts: number): number;
  /**
   * With other processes on the database: how often to look for conversations with pending rows that
   * nobody is posting (their process died holding the claim, with nobody left to kick them). Absent: never.
   */
  sweepEveryMs?: number;
}

/** How soon a conversation another process is posting to is looked at again (its rows may be ours to post once it lets go). */
const BUSY_RECHECK_MS = 1000;

/** How one worker turn ended: no row left, a row not due yet (a timer is set), or a row left to the process running its run. */
type TurnEnd = 'drained' | 'waiting' | 'yielded';

/** An answer whose rows are delivered by finishing its live preview rather than by new posts. */
interface StreamedAnswer {
  readonly stream: AnswerStream;
  readonly text: string;
  /** The rows of the answer, in order, with the text each stands for. */
  readonly rows: readonly { readonly id: number; readonly text: string }[];
}

/** How far the platform's clock may be behind Errand's when a preview message is looked for by time. */
const CLOCK_SKEW_MS = 5_000;

/** The idempotency key of an outbox row: Discord nonces allow 25 characters. */
export const idempotencyKeyOf = (id: number): string => `e${id}`;

/**
 * Delivers pending outbox rows: one worker per conversation posts its rows in id order through the
 * adapter (whose per-channel queue keeps the pace), marking each posted with its platform id. A row
 * tried before (a crash or a failure after the request left) is first looked up on the platform
 * where the adapter can (`findPosted`); Discord's nonce makes a second post return the first.
 * Transient failures wait and retry; a gone target fails every pending row of the conversation.
 * A worker posts only while it holds the conversation's claim (OutboxStore.claim): processes sharing a
 * database never post the same row twice, and a claim whose process died is taken over once it lapses.
 */
export class OutboxPoster {
  private readonly workers = new Map<string, Promise<void>>();
  private readonly timers = new Map<string, unknown>();
  /** Conversations kicked while their worker was finishing: it starts again once it has. */
  private readonly rekick = new Set<string>();
  private readonly waiters = new Map<number, ((s: PostSettled) => void)[]>();
  /** Answers streamed by this process, by the id of each of their rows (in memory: a restart posts them anew). */
  private readonly streamed = new Map<number, StreamedAnswer>();
  private started = false;
  private stopping = false;
  private sweepTimer: unknown = null;

  constructor(private readonly deps: OutboxPosterDeps) {}

  /** Starts delivering, beginning with every row left pending from before. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.sweep();
  }

  /** Kicks every conversation with pending rows (a worker whose claim is busy elsewhere just looks again later). */
  private async sweep(): Promise<void> {
    try {
      for (const id of await this.deps.store.pendingConversations()) this.kick(id);
    } finally {
      const every = this.deps.sweepEveryMs;
      if (every !== undefined && !this.stopping) {
        this.sweepTimer = this.deps.clock.setTimer(() => {
          this.sweepTimer = null;
          this.sweep().catch((err: unknown) => this.deps.logger.warn({ err }, 'looking for unposted outbox rows failed; looking again later'));
        }, every);
      }
    }
  }

  /** Delivers the conversation's pending rows (no-op before start and after stop). */
  kick(conversationId: string): void {
    if (!this.started || this.stopping) return;
    if (this.workers.has(conversationId)) {
      this.rekick.add(conversationId);
      return;
    }
    const timer = this.timers.get(conversationId);
    if (timer !== undefined) {
      this.deps.clock.clearTimer(timer);
      this.timers.delete(conversationId);
    }
    const work = this.work(conversationId)
      .catch((err: unknown) => this.deps.logger.error({ err, conversationId }, 'the outbox worker failed'))
      .finally(() => {
        if (this.workers.get(conversationId) !== work) return;
        this.workers.delete(conversationId);
        if (this.rekick.delete(conversationId)) this.kick(conversationId);
      });
    this.workers.set(conversationId, work);
  }

  /** Resolves when row `id` is posted, failed, or left for the next start. */
  settled(id: number): Promise<PostSettled> {
    // The waiter is registered before the row is read: a row settled while the read is on its way still reaches it.
    return new Promise((resolve) => {
      this.waiters.set(id, [...(this.waiters.get(id) ?? []), resolve]);
      this.settleFromStore(id);
    });
  }

  /** Settles row `id`'s waiters if the database says it is settled (another process may have posted it). */
  private settleFromStore(id: number): void {
    this.deps.store.state(id).then(
      (state) => {
        if (!state) this.settle(id, { kind: 'failed', error: new Error(`no outbox row ${id}`) });
        else if (state.status === 'posted') this.settle(id, { kind: 'posted', platformMessageId: state.platformMessageId ?? '' });
        else if (state.status === 'failed') this.settle(id, { kind: 'failed', error: new Error('the post failed') });
        else if (this.stopping) this.settle(id, { kind: 'stopped' });
      },
      (err: unknown) => this.settle(id, { kind: 'failed', error: err }),
    );
  }

  /** Waiters whose rows another process posted hear of it here: after a turn, and while another process holds the claim. */
  private settleWaitersFromStore(): void {
    for (const id of this.waiters.keys()) this.settleFromStore(id);
  }

  /**
   * Resolves once no worker is posting: every row due now has been posted (or has failed). Rows that
   * wait for a later try (a backoff, another process's claim) stay pending.
   */
  async idle(): Promise<void> {
    // A worker re-kicked as it finishes is registered before its predecessor's promise settles.
    while (this.workers.size > 0) await Promise.allSettled([...this.workers.values()]);
  }

  /**
   * Stops taking rows and waits up to `graceMs` for the posts in flight; what is left stays pending
   * for the next start. Waiters get `stopped`.
   */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    if (this.sweepTimer !== null) this.deps.clock.clearTimer(this.sweepTimer);
    this.sweepTimer = null;
    for (const t of this.timers.values()) this.deps.clock.clearTimer(t);
    this.timers.clear();
    this.rekick.clear();
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.workers.values()]), new Promise<void>((r) => (timeout = setTimeout(r, graceMs)))]);
    clearTimeout(timeout);
    for (const [id, list] of this.waiters) for (const w of list) w({ kind: 'stopped' });
    this.waiters.clear();
    // Left for the next start, which posts them anew: their previews are removed, or the answer would show twice.
    const left = new Set(this.streamed.values());
    this.streamed.clear();
    await Promise.allSettled([...left].map((a) => a.stream.stop('discard')));
  }

  /**
   * These rows (one answer, in order) are delivered by finishing `stream`, the preview already on the
   * platform: when the worker reaches them it calls `finish` instead of posting, and marks each row
   * posted with the message that shows it. A row that is dropped or given up stops the preview instead.
   */
  viaStream(rows: StreamedAnswer['rows'], text: string, stream: AnswerStream): void {
    const answer: StreamedAnswer = { stream, text, rows };
    for (const r of rows) this.streamed.set(r.id, answer);
  }

  /** Tells whoever waits on these rows that they will not be posted. */
  dropped(ids: readonly number[]): void {
    for (const id of ids) {
      this.stopStream(id);
      this.settle(id, { kind: 'failed', error: new Error('stopped before it was posted') });
    }
  }

  /** The preview of a row that will not be delivered ends as it is, marked stopped. */
  private stopStream(id: number): void {
    const answer = this.streamed.get(id);
    if (!answer) return;
    for (const r of answer.rows) this.streamed.delete(r.id);
    answer.stream.stop().catch((err: unknown) => this.deps.logger.warn({ err, outboxId: id }, 'stopping an answer preview failed'));
  }

  private settle(id: number, s: PostSettled): void {
    const list = this.waiters.get(id);
    this.waiters.delete(id);
    for (const w of list ?? []) w(s);
  }

  private async work(conversationId: string): Promise<void> {
    // Starts on the next tick, so the worker is registered before it can finish.
    await Promise.resolve();
    if (this.stopping) return;
    const attempt = await this.deps.store.claim(conversationId);
    if (attempt.kind === 'busy') {
      // Another process is posting these rows (ours too, in order); look again soon, or once its claim lapses.
      const lapsesIn = attempt.until - this.deps.clock.now();
      this.later(conversationId, lapsesIn > 0 ? Math.min(BUSY_RECHECK_MS, lapsesIn) : BUSY_RECHECK_MS);
      this.settleWaitersFromStore();
      return;
    }
    const keeper = this.keep(conversationId, attempt.claim);
    let end: TurnEnd = 'waiting';
    try {
      end = await this.turn(conversationId, keeper.lost);
    } finally {
      keeper.stop();
      await attempt.claim.release().catch((err: unknown) => this.deps.logger.warn({ err, conversationId }, 'releasing an outbox claim failed; it lapses by itself'));
    }
    // Left to the process running that row's run: look again soon, to post what follows and hear what it posted.
    if (end === 'yielded' && !this.stopping) this.later(conversationId, BUSY_RECHECK_MS);
    if (end !== 'drained' || this.stopping) return;
    // A row another process recorded while we held the claim found us busy: it is ours to post now.
    if (await this.deps.store.nextPending(conversationId)) this.rekick.add(conversationId);
    this.settleWaitersFromStore();
  }

  /** Posts the conversation's due rows in order while the claim holds. */
  private async turn(conversationId: string, lost: () => boolean): Promise<TurnEnd> {
    while (!this.stopping && !lost()) {
      const row = await this.deps.store.nextPending(conversationId);
      if (!row) return 'drained';
      // That process posts its run's rows (or, if it died, the takeover of the run hands them to everyone).
      if (row.runningElsewhere) return 'yielded';
      const wait = row.notBefore - this.deps.clock.now();
      if (wait > 0) {
        this.later(conversationId, wait);
        return 'waiting';
      }
      await this.deliver(row);
    }
    return 'waiting';
  }

  /** Kicks the conversation again in `ms` (replacing an earlier timer). */
  private later(conversationId: string, ms: number): void {
    const earlier = this.timers.get(conversationId);
    if (earlier !== undefined) this.deps.clock.clearTimer(earlier);
    this.timers.set(
      conversationId,
      this.deps.clock.setTimer(() => {
        this.timers.delete(conversationId);
        this.kick(conversationId);
      }, ms),
    );
  }

  /** Renews a claim while its turn lasts; `lost()` turns true once a renewal finds another process took it. */
  private keep(conversationId: string, claim: OutboxClaim): { lost: () => boolean; stop: () => void } {
    let lost = false;
    let stopped = false;
    let timer: unknown = null;
    const every = claim.renewEveryMs;
    const arm = () => {
      if (every === null || stopped) return;
      timer = this.deps.clock.setTimer(() => {
        timer = null;
        claim.renew().then(
          (ok) => {
            if (ok) return arm();
            lost = true;
            this.deps.logger.warn({ conversationId }, 'another process took over posting to this conversation; this one stops after the post in flight');
          },
          (err: unknown) => {
            this.deps.logger.warn({ err, conversationId }, 'renewing an outbox claim failed; trying again');
            arm();
          },
        );
      }, every);
    };
    arm();
    return {
      lost: () => lost,
      stop: () => {
        stopped = true;
        if (timer !== null) this.deps.clock.clearTimer(timer);
      },
    };
  }

  private async deliver(row: PendingPost): Promise<void> {
    const { store, logger } = this.deps;
    const ref = this.deps.refOf(row.conversationId);
    const adapter = ref ? this.deps.adapters.get(ref.platform) : undefined;
    if (!ref || !adapter) {
      await store.markFailed(row.id, 'no adapter for this conversation');
      logger.error({ conversationId: row.conversationId, outboxId: row.id }, 'no adapter for an outbox row; failed it');
      return this.settle(row.id, { kind: 'failed', error: new Error('no adapter for this conversation') });
    }
    if (row.purpose === 'retract') return this.retract(row, ref, adapter);
    const streamed = this.streamed.get(row.id);
    if (streamed) return this.finishStream(row, streamed);
    const key = idempotencyKeyOf(row.id);
    try {
      if (row.attempts > 0 && adapter.findPosted) {
        const found = (await adapter.findPosted(ref, [key])).get(key);
        if (found !== undefined) {
          logger.info({ outboxId: row.id, platformMessageId: found }, 'an earlier try of this post had reached the platform; adopted it');
          return await this.posted(row, found);
        }
      }
      await store.countAttempt(row.id);
      const posted = await adapter.postMessage(ref, { ...row.payload, idempotencyKey: key });
      await this.posted(row, posted.id);
    } catch (err) {
      await this.failed(row, err);
    }
  }

  /** Delivers an answer's rows by finishing its preview; a preview that was stopped meanwhile leaves them to be posted. */
  private async finishStream(row: PendingPost, answer: StreamedAnswer): Promise<void> {
    const first = answer.rows[0];
    if (first?.id !== row.id || first.text !== row.payload.text) {
      // Not the answer this preview was opened for (or not from its start): post as usual.
      for (const r of answer.rows) this.streamed.delete(r.id);
      return this.deliver(row);
    }
    try {
      await this.deps.store.countAttempt(row.id);
      const ids = await answer.stream.finish(answer.text, answer.rows.map((r) => r.text));
      for (const r of answer.rows) this.streamed.delete(r.id);
      if (ids.length !== answer.rows.length) return this.deliver(row);
      // One write: the rows are posted and the run's preview records settled, so a crash cannot leave the answer to be taken back.
      await this.deps.store.markStreamed(row.runId, answer.rows.map((r, i) => ({ id: r.id, platformMessageId: ids[i]! })));
      for (const [i, r] of answer.rows.entries()) this.settle(r.id, { kind: 'posted', platformMessageId: ids[i]! });
    } catch (err) {
      await this.failed(row, err);
    }
  }

  /**
   * Takes back the unfinished preview message of an interrupted run (`platform_message_id` of the row):
   * deleted where the platform allows it (one already gone counts as deleted), else edited to the row's
   * mark. A row without an id was written before its post left and the process never heard back: the
   * message is looked for on the platform first, and when there is none the row is settled with nothing
   * to take back. Failures retry like posts; the row is marked posted once done, so it is done once.
   */
  private async retract(row: PendingPost, ref: ConversationRef, adapter: ChatAdapter): Promise<void> {
    try {
      await this.deps.store.countAttempt(row.id);
      const target = (await this.deps.store.state(row.id))?.platformMessageId ?? (await this.findUnrecorded(row, ref, adapter));
      if (target === null) {
        await this.deps.store.markNothingToRetract(row.id);
        this.deps.logger.info({ outboxId: row.id }, 'an interrupted answer preview never reached the platform; nothing to take back');
        return this.settle(row.id, { kind: 'posted', platformMessageId: '' });
      }
      const deleted = adapter.deleteMessage ? await adapter.deleteMessage(ref, target) : false;
      if (!deleted) await adapter.editMessage(ref, target, { text: row.payload.text });
      this.deps.logger.info({ outboxId: row.id, platformMessageId: target, deleted }, 'took back an interrupted answer preview');
      await this.posted(row, target);
    } catch (err) {
      await this.failed(row, err);
    }
  }

  /** The message of a preview row whose post never got its answer, as the platform has it; null when it has none. */
  private async findUnrecorded(row: PendingPost, ref: ConversationRef, adapter: ChatAdapter): Promise<string | null> {
    if (!adapter.findUnrecordedPreview) return null;
    const probe = await this.deps.store.previewProbe(row.id, CLOCK_SKEW_MS);
    if (!probe) return null;
    return adapter.findUnrecordedPreview(ref, { key: idempotencyKeyOf(row.id), since: probe.since - CLOCK_SKEW_MS, until: probe.until, known: new Set(probe.known), text: row.payload.text });
  }

  private async posted(row: PendingPost, platformMessageId: string): Promise<void> {
    if (!(await this.deps.store.markPosted(row.id, platformMessageId))) return;
    if ((row.purpose === 'question' || row.purpose === 'approval') && row.runId !== null) await this.deps.onQuestionPosted(row.runId, platformMessageId);
    this.settle(row.id, { kind: 'posted', platformMessageId });
  }

  private async failed(row: PendingPost, err: unknown): Promise<void> {
    const { store, logger, clock } = this.deps;
    const reason = err instanceof Error ? err.message : String(err);
    if (isTargetGone(err)) {
      logger.warn({ err, conversationId: row.conversationId }, 'the conversation can no longer be posted to; its pending posts are dropped');
      for (const id of await store.failConversation(row.conversationId, reason)) {
        this.stopStream(id);
        this.settle(id, { kind: 'failed', error: err });
      }
      return;
    }
    const attempts = row.attempts + 1;
    if (attempts >= (this.deps.maxAttempts ?? 5)) {
      logger.error({ err, outboxId: row.id, attempts }, 'posting failed; giving up on this message');
      this.stopStream(row.id);
      await store.markFailed(row.id, reason);
      return this.settle(row.id, { kind: 'failed', error: err });
    }
    const delay = this.deps.backoffMs?.(attempts) ?? Math.min(30_000, 1000 * 2 ** (attempts - 1));
    logger.warn({ err, outboxId: row.id, attempts, retryInMs: delay }, 'posting failed; will retry');
    await store.defer(row.id, clock.now() + delay, reason);
  }
}
