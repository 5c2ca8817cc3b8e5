import { runDetached } from '../run-detached.js';

/**
 * The transactions and calls that share one SQLite commit: each waits for it, and their commit
 * callbacks run once it is written. A failed commit rejects every one of them (none was told of success).
 */
export class CommitGroup {
  private readonly waiters: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  /** Callbacks of the group's transactions, run after the commit and never after a rollback. */
  readonly afterCommit: (() => void)[] = [];

  /** Settles when the group is committed; rejects if it is not. */
  settled(): Promise<void> {
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  succeed(): void {
    for (const w of this.waiters) w.resolve();
    for (const fn of this.afterCommit) runDetached(fn);
  }

  fail(err: unknown): void {
    for (const w of this.waiters) w.reject(err);
  }
}
