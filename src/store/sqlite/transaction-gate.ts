import { AsyncLocalStorage } from 'node:async_hooks';
import { runDetached } from '../run-detached.js';

/** What the gate needs of the connection: better-sqlite3's `exec` and `inTransaction`. */
export interface GatedConnection {
  exec(sql: string): unknown;
  readonly inTransaction: boolean;
}

/** One transaction in progress: who holds the connection, and what waits for its commit. */
interface Transaction {
  readonly afterCommit: (() => void)[];
}

/**
 * Async transactions over one synchronous SQLite connection. better-sqlite3 cannot keep a
 * transaction open across `await` by itself: while one flow's transaction awaits, another flow's
 * statement would run inside it (and be rolled back with it). So a transaction holds a FIFO mutex
 * from `BEGIN IMMEDIATE` to `COMMIT`/`ROLLBACK`; AsyncLocalStorage tells its own calls (which run at
 * once) from everyone else's (which wait until it ends, in arrival order). When no transaction is
 * open, a call runs at once, synchronously: the hot path costs no extra tick, and the storage is
 * disabled, so the rest of the process pays nothing for it.
 */
export class TransactionGate {
  private readonly context = new AsyncLocalStorage<Transaction>();
  private holder: Transaction | null = null;
  private locked = false;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly connection: GatedConnection) {}

  /** Runs one synchronous statement group now, or after the transaction that holds the connection. */
  call<R>(fn: () => R): Promise<R> {
    if (!this.locked || this.inside()) {
      try {
        return Promise.resolve(fn());
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return this.acquire().then(() => {
      try {
        return fn();
      } finally {
        this.release();
      }
    });
  }

  /** Runs `work` in one transaction (nested: in the one already open); rollback and rethrow on error. */
  async atomically<T>(work: () => Promise<T>): Promise<T> {
    if (this.inside()) return work();
    await this.acquire();
    const tx: Transaction = { afterCommit: [] };
    let result: T;
    try {
      this.connection.exec('BEGIN IMMEDIATE');
      this.holder = tx;
      try {
        result = await this.context.run(tx, work);
        this.connection.exec('COMMIT');
      } catch (err) {
        if (this.connection.inTransaction) this.connection.exec('ROLLBACK');
        throw err;
      }
    } finally {
      this.holder = null;
      // On Node 20 an enabled AsyncLocalStorage puts a hook on every promise of the process; only a
      // transaction needs it, so it is on only while one holds the connection (the next run() turns it on again).
      this.context.disable();
      this.release();
    }
    for (const fn of tx.afterCommit) runDetached(fn);
    return result;
  }

  /** Runs `fn` after the current transaction commits; at once outside one. */
  afterCommit(fn: () => void): void {
    if (this.inside()) this.context.getStore()!.afterCommit.push(fn);
    else fn();
  }

  /** Whether the caller runs inside the transaction that holds the connection now. */
  private inside(): boolean {
    const tx = this.context.getStore();
    return tx !== undefined && tx === this.holder;
  }

  private acquire(): Promise<void> {
    if (!this.locked) {
      this.locked = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Hands the connection to the next waiter (it stays locked), or unlocks it. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.locked = false;
  }
}
