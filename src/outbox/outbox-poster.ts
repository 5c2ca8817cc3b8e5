import type { ChatAdapter } from '../chat/chat-adapter.js';
import type { ConversationRef } from '../chat/conversation-ref.js';
import type { Clock } from '../clock.js';
import { isTargetGone } from '../errors.js';
import type { Logger } from '../logger.js';
import type { OutboxStore, PendingPost } from './outbox-store.js';

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
}

/** The idempotency key of an outbox row: Discord nonces allow 25 characters. */
export const idempotencyKeyOf = (id: number): string => `e${id}`;

/**
 * Delivers pending outbox rows: one worker per conversation posts its rows in id order through the
 * adapter (whose per-channel queue keeps the pace), marking each posted with its platform id. A row
 * tried before (a crash or a failure after the request left) is first looked up on the platform
 * where the adapter can (`findPosted`); Discord's nonce makes a second post return the first.
 * Transient failures wait and retry; a gone target fails every pending row of the conversation.
 */
export class OutboxPoster {
  private readonly workers = new Map<string, Promise<void>>();
  private readonly timers = new Map<string, unknown>();
  /** Conversations kicked while their worker was finishing: it starts again once it has. */
  private readonly rekick = new Set<string>();
  private readonly waiters = new Map<number, ((s: PostSettled) => void)[]>();
  private started = false;
  private stopping = false;

  constructor(private readonly deps: OutboxPosterDeps) {}

  /** Starts delivering, beginning with every row left pending from before. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    for (const id of await this.deps.store.pendingConversations()) this.kick(id);
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
      this.deps.store.state(id).then(
        (state) => {
          if (!state) this.settle(id, { kind: 'failed', error: new Error(`no outbox row ${id}`) });
          else if (state.status === 'posted') this.settle(id, { kind: 'posted', platformMessageId: state.platformMessageId ?? '' });
          else if (state.status === 'failed') this.settle(id, { kind: 'failed', error: new Error('the post failed') });
          else if (this.stopping) this.settle(id, { kind: 'stopped' });
        },
        (err: unknown) => this.settle(id, { kind: 'failed', error: err }),
      );
    });
  }

  /**
   * Stops taking rows and waits up to `graceMs` for the posts in flight; what is left stays pending
   * for the next start. Waiters get `stopped`.
   */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    for (const t of this.timers.values()) this.deps.clock.clearTimer(t);
    this.timers.clear();
    this.rekick.clear();
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.workers.values()]), new Promise<void>((r) => (timeout = setTimeout(r, graceMs)))]);
    clearTimeout(timeout);
    for (const [id, list] of this.waiters) for (const w of list) w({ kind: 'stopped' });
    this.waiters.clear();
  }

  /** Tells whoever waits on these rows that they will not be posted. */
  dropped(ids: readonly number[]): void {
    for (const id of ids) this.settle(id, { kind: 'failed', error: new Error('stopped before it was posted') });
  }

  private settle(id: number, s: PostSettled): void {
    const list = this.waiters.get(id);
    this.waiters.delete(id);
    for (const w of list ?? []) w(s);
  }

  private async work(conversationId: string): Promise<void> {
    // Starts on the next tick, so the worker is registered before it can finish.
    await Promise.resolve();
    while (!this.stopping) {
      const row = await this.deps.store.nextPending(conversationId);
      if (!row) return;
      const wait = row.notBefore - this.deps.clock.now();
      if (wait > 0) {
        const earlier = this.timers.get(conversationId);
        if (earlier !== undefined) this.deps.clock.clearTimer(earlier);
        this.timers.set(
          conversationId,
          this.deps.clock.setTimer(() => {
            this.timers.delete(conversationId);
            this.kick(conversationId);
          }, wait),
        );
        return;
      }
      await this.deliver(row);
    }
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
      for (const id of await store.failConversation(row.conversationId, reason)) this.settle(id, { kind: 'failed', error: err });
      return;
    }
    const attempts = row.attempts + 1;
    if (attempts >= (this.deps.maxAttempts ?? 5)) {
      logger.error({ err, outboxId: row.id, attempts }, 'posting failed; giving up on this message');
      await store.markFailed(row.id, reason);
      return this.settle(row.id, { kind: 'failed', error: err });
    }
    const delay = this.deps.backoffMs?.(attempts) ?? Math.min(30_000, 1000 * 2 ** (attempts - 1));
    logger.warn({ err, outboxId: row.id, attempts, retryInMs: delay }, 'posting failed; will retry');
    await store.defer(row.id, clock.now() + delay, reason);
  }
}
