import type { OutboxStore } from '../store/outbox-store.js';

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

  /** @param stopping whether the poster is shutting down: a row still pending then settles as `stopped`. */
  constructor(
    private readonly store: Pick<OutboxStore, 'state'>,
    private readonly stopping: () => boolean,
  ) {}

  /** Resolves when row `id` is posted, failed, or left for the next start. */
  wait(id: number): Promise<PostSettled> {
    // The waiter is registered before the row is read: a row settled while the read is on its way still reaches it.
    return new Promise((resolve) => {
      this.waiters.set(id, [...(this.waiters.get(id) ?? []), resolve]);
      this.settleFromStore(id);
    });
  }

  /** Tells row `id`'s waiters how it ended. */
  settle(id: number, s: PostSettled): void {
    const list = this.waiters.get(id);
    this.waiters.delete(id);
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
  }

  /** Settles row `id`'s waiters if the database says it is settled (another poster may have posted it). */
  private settleFromStore(id: number): void {
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
