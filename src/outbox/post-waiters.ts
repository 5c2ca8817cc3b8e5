import type { OutboxStore } from '../store/outbox-store.js';

/** How many recorded rows' conversations are remembered for `PostWaiters.wait` (a row never waited on is forgotten). */
const RECORDED_KEPT = 1000;

/** How one outbox row ended, for whoever waits on it. */
export type PostSettled =
  | { readonly kind: 'posted'; readonly platformMessageId: string }
  | { readonly kind: 'failed'; readonly error: unknown }
  /** The poster stopped (shutdown) with the row still pending: the next start posts it. */
  | { readonly kind: 'stopped' };

/**
 * Who waits on which outbox row. Kept apart from posting because a row may be settled by this
 * process, by another poster on the same database (read back from the store), or by shutdown.
 */
export class PostWaiters {
  private readonly waiters = new Map<number, ((s: PostSettled) => void)[]>();
  /** The conversation of each waited row, once its first read told it (rows not known yet are read with any conversation). */
  private readonly conversationOf = new Map<number, string>();
  /** Rows recorded in this process, and their conversation (the most recent RECORDED_KEPT): see `wait`. */
  private readonly recordedIn = new Map<number, string>();
  /** Per conversation, the waited rows whose first read was left to the end of its worker (`readDeferred`). */
  private readonly deferred = new Map<string, Set<number>>();

  /** @param stopping whether the poster is shutting down: a row still pending then settles as `stopped`. */
  constructor(
    private readonly store: Pick<OutboxStore, 'state'>,
    private readonly stopping: () => boolean,
  ) {}

  /** Rows just recorded in this process, in `conversationId` (kicked with them): their waits may skip the first read. */
  recorded(ids: readonly number[], conversationId: string): void {
    for (const id of ids) this.recordedIn.set(id, conversationId);
    for (const id of this.recordedIn.keys()) {
      if (this.recordedIn.size <= RECORDED_KEPT) break;
      this.recordedIn.delete(id);
    }
  }

  /**
   * Resolves when row `id` is posted, failed, or left for the next start. A row recorded here whose conversation
   * has a worker running (`working`) is not read now (issue 40, fifth round: one statement a post): that worker
   * posts it and settles it here, or, when it ends, reads what is still waited (`readDeferred`); a worker that
   * finds the claim busy reads it as any waiter (`settleFromStoreIn`).
   */
  wait(id: number, working: (conversationId: string) => boolean = () => false): Promise<PostSettled> {
    // The waiter is registered before the row is read: a row settled while the read is on its way still reaches it.
    return new Promise((resolve) => {
      this.waiters.set(id, [...(this.waiters.get(id) ?? []), resolve]);
      const conversationId = this.recordedIn.get(id);
      if (conversationId === undefined || !working(conversationId)) return this.settleFromStore(id);
      this.conversationOf.set(id, conversationId);
      const set = this.deferred.get(conversationId) ?? new Set<number>();
      this.deferred.set(conversationId, set.add(id));
    });
  }

  /** The conversation's worker ended: its waited rows not settled and not read since they were waited are read now. */
  readDeferred(conversationId: string): void {
    const ids = this.deferred.get(conversationId);
    this.deferred.delete(conversationId);
    for (const id of ids ?? []) if (this.waiters.has(id)) this.settleFromStore(id);
  }

  /** Tells row `id`'s waiters how it ended. */
  settle(id: number, s: PostSettled): void {
    const list = this.waiters.get(id);
    this.waiters.delete(id);
    this.recordedIn.delete(id);
    const of = this.conversationOf.get(id);
    if (of !== undefined) this.deferred.get(of)?.delete(id);
    this.conversationOf.delete(id);
    for (const w of list ?? []) w(s);
  }

  /**
   * Waiters whose rows another poster settled hear of it here: after a turn on their conversation, and while
   * another poster holds its claim. Only that conversation's waiters are read: a waited row's conversation is
   * kicked when the row is recorded and looked at again until it has no pending row, so each waiter is read
   * at its own conversation's turns, not at every conversation's.
   */
  settleFromStoreIn(conversationId: string): void {
    for (const id of this.waiters.keys()) {
      const of = this.conversationOf.get(id);
      if (of === undefined || of === conversationId) this.settleFromStore(id);
    }
  }

  /** Every waiter left hears `stopped` (shutdown). */
  stopAll(): void {
    for (const [, list] of this.waiters) for (const w of list) w({ kind: 'stopped' });
    this.waiters.clear();
    this.conversationOf.clear();
    this.deferred.clear();
  }

  /** Settles row `id`'s waiters if the database says it is settled (another poster may have posted it). */
  private settleFromStore(id: number): void {
    const of = this.conversationOf.get(id);
    if (of !== undefined) this.deferred.get(of)?.delete(id);
    this.store.state(id).then(
      (state) => {
        if (!state) return this.settle(id, { kind: 'failed', error: new Error(`no outbox row ${id}`) });
        if (this.waiters.has(id)) this.conversationOf.set(id, state.conversationId);
        if (state.status === 'posted')
          this.settle(id, { kind: 'posted', platformMessageId: state.platformMessageId ?? '' });
        else if (state.status === 'failed') this.settle(id, { kind: 'failed', error: new Error('the post failed') });
        else if (this.stopping()) this.settle(id, { kind: 'stopped' });
      },
      (err: unknown) => this.settle(id, { kind: 'failed', error: err }),
    );
  }
}
