import type { AnswerStream } from '../chat/chat-adapter.js';
import type { Delivery } from '../chat/delivery.js';
import type { ConversationRef } from '../chat/conversation-ref.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { ClaimAttempt, OutboxClaim, OutboxStore, PendingPost } from '../store/outbox-store.js';
import type { OutboxFileStore } from '../store/outbox-file-store.js';
import type { Tracing } from '../telemetry/tracing.js';
import { keepClaim } from './claim-keeper.js';
import { PostWaiters, type PostSettled } from './post-waiters.js';
import { RowDelivery, type TurnClaim } from './row-delivery.js';
import type { PrivateAnswerStore } from '../privacy/private-answer-store.js';
import { StreamedAnswers, type StreamedAnswer } from './streamed-answers.js';
import type { ClaimAhead } from './claim-ahead.js';

export { idempotencyKeyOf } from './idempotency-key.js';
export type { PostSettled } from './post-waiters.js';
export type { ClaimAhead } from './claim-ahead.js';

export interface OutboxPosterDeps {
  store: OutboxStore;
  /** The bytes of `files` rows (absent: such rows fail, as on a store without them). */
  files?: OutboxFileStore;
  /** The bytes of files held for their owner, shown to them with their notice (absent: the notice goes alone). */
  heldFiles?: Pick<PrivateAnswerStore, 'filesOf'>;
  adapters: ReadonlyMap<string, Delivery>;
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
  /** Each delivery in a span (traces on), under its run's span while the run executes here; absent: not traced. */
  tracing?: { readonly tracing: Tracing; parentOf(runId: string): string | null };
}

/** How soon a conversation another process is posting to is looked at again (its rows may be ours to post once it lets go). */
const BUSY_RECHECK_MS = 1000;

/**
 * How one worker turn ended: no row left, a row not due yet (a timer is set), or a row left to the process running its run;
 * or no row left and the claim given up with that check (`OutboxClaim.releaseIfDrained`).
 */
type TurnEnd = 'drained' | 'waiting' | 'yielded' | 'released';

/**
 * Delivers pending outbox rows: one worker per conversation posts its rows in id order (RowDelivery
 * posts each one through the adapter, whose per-channel queue keeps the pace). This class owns the
 * pacing of the work: which conversation is worked on, when it is looked at again, the sweep, and
 * shutdown. A worker posts only while it holds the conversation's claim (OutboxStore.claim, kept by
 * keepClaim): processes sharing a database never post the same row twice, and a claim whose
 * process died is taken over once it lapses.
 */
export class OutboxPoster {
  private readonly workers = new Map<string, Promise<void>>();
  private readonly timers = new Map<string, unknown>();
  /** Conversations kicked while their worker was finishing: it starts again once it has. */
  private readonly rekick = new Set<string>();
  private readonly waiters: PostWaiters;
  private readonly streamed: StreamedAnswers;
  private readonly delivery: RowDelivery;
  private started = false;
  private stopping = false;
  private sweepTimer: unknown = null;

  constructor(private readonly deps: OutboxPosterDeps) {
    this.waiters = new PostWaiters(deps.store, () => this.stopping);
    this.streamed = new StreamedAnswers(deps.logger, deps.store);
    this.delivery = new RowDelivery({ ...deps, waiters: this.waiters, streamed: this.streamed });
  }

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
          this.sweep().catch((err: unknown) =>
            this.deps.logger.warn({ err }, 'looking for unposted outbox rows failed; looking again later'),
          );
        }, every);
      }
    }
  }

  /**
   * Delivers the conversation's pending rows (no-op before start and after stop). `recorded`: rows just recorded
   * there, whose waits need no read of their state while this worker runs (PostWaiters.wait).
   */
  kick(conversationId: string, recorded?: readonly number[]): void {
    if (!this.started || this.stopping) return;
    if (recorded) this.waiters.recorded(recorded, conversationId);
    if (this.workers.has(conversationId)) {
      this.rekick.add(conversationId);
      return;
    }
    this.clearTimer(conversationId);
    this.startWorker(conversationId);
  }

  /**
   * Starts the conversation's worker on the claim the caller's write takes (OutboxStore.addFencedAnswerClaiming), handed
   * over (null: nothing claimed) exactly once; worked even if stopping meanwhile. Null: not started, stopping, or a turn
   * here holds the claim (claim nothing and kick). Registered at once: kicks meanwhile wait for its turn, as for any.
   */
  claimAhead(conversationId: string): ClaimAhead | null {
    if (!this.started || this.stopping || this.workers.has(conversationId)) return null;
    let hand!: (attempt: ClaimAttempt | null) => void;
    this.startWorker(conversationId, new Promise<ClaimAttempt | null>((resolve) => (hand = resolve)));
    return (attempt, recorded) => {
      if (attempt && recorded) this.waiters.recorded(recorded, conversationId);
      if (attempt) this.clearTimer(conversationId);
      hand(attempt);
    };
  }

  private startWorker(conversationId: string, ahead?: Promise<ClaimAttempt | null>): void {
    const work = this.work(conversationId, ahead)
      .catch((err: unknown) => this.deps.logger.error({ err, conversationId }, 'the outbox worker failed'))
      .finally(() => {
        if (this.workers.get(conversationId) !== work) return;
        this.workers.delete(conversationId);
        this.waiters.readDeferred(conversationId);
        if (this.rekick.delete(conversationId)) this.kick(conversationId);
      });
    this.workers.set(conversationId, work);
  }

  /** Resolves when row `id` is posted, failed, or left for the next start. */
  settled(id: number): Promise<PostSettled> {
    return this.waiters.wait(id, (conversationId) => this.workers.has(conversationId));
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
   * Stops taking rows and waits up to `graceMs` in all for the posts in flight and the removal of the
   * previews left; what is left stays pending for the next start. Waiters get `stopped`.
   */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    if (this.sweepTimer !== null) this.deps.clock.clearTimer(this.sweepTimer);
    this.sweepTimer = null;
    for (const t of this.timers.values()) this.deps.clock.clearTimer(t);
    this.timers.clear();
    this.rekick.clear();
    const deadline = Date.now() + graceMs;
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.workers.values()]),
      new Promise<void>((r) => (timeout = setTimeout(r, graceMs))),
    ]);
    clearTimeout(timeout);
    this.waiters.stopAll();
    // Left for the next start, which posts them anew: their previews are removed, or the answer would show twice.
    // Within what is left of the grace: what is not removed by then is recorded to be taken back at the next start.
    await this.streamed.discardAll(Math.max(0, deadline - Date.now()));
  }

  /**
   * These rows (one answer, in order) are delivered by finishing `stream`, the preview already on the
   * platform: when the worker reaches them it calls `finish` instead of posting, and marks each row
   * posted with the message that shows it. A row that is dropped or given up stops the preview instead.
   */
  viaStream(rows: StreamedAnswer['rows'], text: string, stream: AnswerStream, runId: string | null): void {
    this.streamed.add({ stream, text, rows, runId });
  }

  /** Tells whoever waits on these rows that they will not be posted. */
  dropped(ids: readonly number[]): void {
    for (const id of ids) {
      this.streamed.stop(id);
      this.waiters.settle(id, { kind: 'failed', error: new Error('stopped before it was posted') });
    }
  }

  private async work(conversationId: string, ahead?: Promise<ClaimAttempt | null>): Promise<void> {
    // Starts on the next tick, so the worker is registered before it can finish.
    await Promise.resolve();
    const attempt = ahead ? await ahead : this.stopping ? null : await this.deps.store.claim(conversationId);
    if (attempt === null) return;
    if (attempt.kind === 'busy') {
      // Another process is posting these rows (ours too, in order); look again soon, or once its claim lapses.
      const lapsesIn = attempt.until - this.deps.clock.now();
      this.later(conversationId, lapsesIn > 0 ? Math.min(BUSY_RECHECK_MS, lapsesIn) : BUSY_RECHECK_MS);
      this.waiters.settleFromStoreIn(conversationId);
      return;
    }
    const keeper = keepClaim(attempt.claim, { clock: this.deps.clock, logger: this.deps.logger, conversationId });
    let end: TurnEnd = 'waiting';
    try {
      end = await this.turn(conversationId, keeper.lost, attempt.claim);
    } finally {
      keeper.stop();
      if (end !== 'released')
        await attempt.claim
          .release()
          .catch((err: unknown) =>
            this.deps.logger.warn({ err, conversationId }, 'releasing an outbox claim failed; it lapses by itself'),
          );
    }
    // Left to the process running that row's run: look again soon, to post what follows and hear what it posted.
    if (end === 'yielded' && !this.stopping) this.later(conversationId, BUSY_RECHECK_MS);
    if (end === 'released') return this.waiters.settleFromStoreIn(conversationId);
    if (end !== 'drained' || this.stopping) return;
    // A row another process recorded while we held the claim found us busy: it is ours to post now. (A row
    // recorded here meanwhile kicked this conversation, so it is in `rekick` already.)
    if (this.deps.store.sharedWithOtherProcesses && (await this.deps.store.nextPending(conversationId)))
      this.rekick.add(conversationId);
    this.waiters.settleFromStoreIn(conversationId);
  }

  /** Posts the conversation's due rows in order while the claim holds. */
  private async turn(conversationId: string, lost: () => boolean, claim: OutboxClaim): Promise<TurnEnd> {
    // The claim's statement may have read the first row already (OutboxClaim.first): one round trip fewer a turn.
    let first = claim.first;
    while (!this.stopping && !lost()) {
      const row = first !== undefined ? first : await this.deps.store.nextPending(conversationId);
      first = undefined;
      if (!row) return 'drained';
      // That process posts its run's rows (or, if it died, the takeover of the run hands them to everyone).
      if (row.runningElsewhere) return 'yielded';
      const wait = row.notBefore - this.deps.clock.now();
      if (wait > 0) {
        this.later(conversationId, wait);
        return 'waiting';
      }
      const turn: TurnClaim = { claim, released: undefined };
      await this.deliver(row, turn);
      // A streamed answer's mark looked for pending rows and gave the claim up if none: nothing to ask again.
      if (turn.released === true) return 'released';
      if (turn.released === false) continue;
      // Most turns post one row: whether another is pending and the release are then one statement, not three.
      if (claim.releaseIfDrained && !this.stopping && !lost() && (await claim.releaseIfDrained())) return 'released';
    }
    return 'waiting';
  }

  /** Delivers one row, in a `deliver <purpose>` span when traces are on (a failure marks it). */
  private deliver(row: PendingPost, turn: TurnClaim): Promise<void> {
    const traced = this.deps.tracing;
    if (!traced?.tracing.enabled) return this.delivery.deliver(row, turn);
    const attributes = {
      'errand.platform': this.deps.refOf(row.conversationId)?.platform,
      'errand.conversation_id': row.conversationId,
      'errand.run_id': row.runId ?? undefined,
      'errand.outbox.purpose': row.purpose,
      'errand.outbox.attempt': row.attempts + 1,
    };
    const parent = row.runId === null ? null : traced.parentOf(row.runId);
    return traced.tracing.span(
      `deliver ${row.purpose}`,
      { kind: 'client', parent, attributes, active: false },
      (span) => this.delivery.deliverIn(row, span, turn),
    );
  }

  private clearTimer(conversationId: string): void {
    const timer = this.timers.get(conversationId);
    if (timer !== undefined) this.deps.clock.clearTimer(timer);
    this.timers.delete(conversationId);
  }

  /** Kicks the conversation again in `ms` (replacing an earlier timer). */
  private later(conversationId: string, ms: number): void {
    this.clearTimer(conversationId);
    this.timers.set(
      conversationId,
      this.deps.clock.setTimer(() => {
        this.timers.delete(conversationId);
        this.kick(conversationId);
      }, ms),
    );
  }
}
