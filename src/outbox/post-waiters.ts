import type { OutboxStore } from '../store/outbox-store.js';

/** How one outbox row ended, for whoever waits on it. */
export type PostSettled =
  | { readonly kind: 'posted'; readonly platformMessageId: string }
  | { readonly kind: 'failed'; readonly error: unknown }
  /** The poster stopped (shutdown) with the row still pending: the next start posts it. */
  | { readonly kind: 'stopped' };

/**
 * Who waits on which outbox row. Kept apart from posting because a row may be settled by this
 * process, by another one sharing the database (read back from the store), or by shutdown.
 */
export class PostWaiters {
  private readonly waiters = new Map<number, ((s: PostSettled) => void)[]>();

  /** @param stopping whether the poster is shutting down: a row still pending then settles as `stopped`. */
  constructor(
    private readonly store: Pick<OutboxStore, 'state' | 'sharedWithOtherProcesses'>,
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
    for (const w of list ?? []) w(s);
  }

  /**
   * Waiters whose rows another process posted hear of it here: after a turn, and while another process holds the
   * claim. Where no other process posts (SQLite), every waiter hears from `settle`: nothing is read.
   */
  settleAllFromStore(): void {
    if (!this.store.sharedWithOtherProcesses) return;
    for (const id of this.waiters.keys()) this.settleFromStore(id);
  }

  /** Every waiter left hears `stopped` (shutdown). */
  stopAll(): void {
    for (const [, list] of this.waiters) for (const w of list) w({ kind: 'stopped' });
    this.waiters.clear();
  }

  /** Settles row `id`'s waiters if the database says it is settled (another process may have posted it). */
  private settleFromStore(id: number): void {
    this.store.state(id).then(
      (state) => {
        if (!state) this.settle(id, { kind: 'failed', error: new Error(`no outbox row ${id}`) });
        else if (state.status === 'posted') this.settle(id, { kind: 'posted', platformMessageId: state.platformMessageId ?? '' });
        else if (state.status === 'failed') this.settle(id, { kind: 'failed', error: new Error('the post failed') });
        else if (this.stopping()) this.settle(id, { kind: 'stopped' });
      },
      (err: unknown) => this.settle(id, { kind: 'failed', error: err }),
    );
  }
}
