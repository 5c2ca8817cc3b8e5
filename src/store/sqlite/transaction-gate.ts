import { AsyncLocalStorage } from 'node:async_hooks';
import { setImmediate as realSetImmediate } from 'node:timers';
import { CommitGroup } from './commit-group.js';

/** What the gate needs of the connection: better-sqlite3's `exec` and `inTransaction`. */
export interface GatedConnection {
  exec(sql: string): unknown;
  readonly inTransaction: boolean;
}

/**
 * When a commit group is written: the end of this turn of the event loop. `node:timers`' own setImmediate,
 * which fake timers (they replace the global) leave alone: a commit must never wait for a fake clock.
 */
export type CommitScheduler = (commit: () => void) => void;
const nextTurn: CommitScheduler = (commit) => void realSetImmediate(commit);

/** One `atomically` in progress: what waits for its commit. */
interface Transaction {
  readonly afterCommit: (() => void)[];
}

/**
 * Async transactions over one synchronous SQLite connection, committed in groups.
 *
 * better-sqlite3 cannot keep a transaction open across `await` by itself: while one flow's transaction
 * awaits, another flow's statement would run inside it (and be rolled back with it). So a transaction
 * holds a FIFO mutex from its savepoint to its release; AsyncLocalStorage tells its own calls (which run
 * at once) from everyone else's (which wait until it ends, in arrival order).
 *
 * A commit writes the WAL (a frame per page touched) and is most of what a transaction costs. So the
 * transactions and calls that arrive within one turn of the event loop share one SQLite transaction,
 * each in a savepoint of its own (a failure undoes only its own writes), and one `COMMIT` at the end of
 * the turn. Nobody hears of success before that commit: a caller's promise settles after it, so nothing
 * leaves the process on the strength of a write that a crash could still take back. When nothing is
 * uncommitted, a call runs at once, synchronously, on its own: the quiet path costs no extra tick.
 */
export class TransactionGate {
  private readonly context = new AsyncLocalStorage<Transaction>();
  private holder: Transaction | null = null;
  private locked = false;
  private readonly waiting: (() => void)[] = [];
  private group: CommitGroup | null = null;
  private commitDue = false;

  constructor(
    private readonly connection: GatedConnection,
    private readonly schedule: CommitScheduler = nextTurn,
  ) {}

  /** Runs one synchronous statement group: at once, or in the open commit group (settling after its commit), or after the transaction that holds the connection. */
  call<R>(fn: () => R): Promise<R> {
    if (this.inside()) return attempt(fn);
    if (!this.locked) return this.group ? this.join(fn) : attempt(fn);
    return this.acquire().then(() => {
      try {
        return this.group ? this.join(fn) : fn();
      } finally {
        this.release();
      }
    });
  }

  /** Runs `work` in one transaction (nested: in the one already open); undo and rethrow on error. Settles after its commit. */
  async atomically<T>(work: () => Promise<T>): Promise<T> {
    if (this.inside()) return work();
    await this.acquire();
    const tx: Transaction = { afterCommit: [] };
    let result: T;
    let committed: Promise<void>;
    try {
      const group = this.open();
      this.connection.exec('SAVEPOINT errand_tx');
      this.holder = tx;
      try {
        result = await this.context.run(tx, work);
        this.connection.exec('RELEASE errand_tx');
      } catch (err) {
        this.undo('errand_tx', err);
        throw err;
      }
      group.afterCommit.push(...tx.afterCommit);
      committed = group.settled();
    } finally {
      this.holder = null;
      // On Node 20 an enabled AsyncLocalStorage puts a hook on every promise of the process; only a
      // transaction needs it, so it is on only while one holds the connection (the next run() turns it on again).
      this.context.disable();
      this.release();
    }
    await committed;
    return result;
  }

  /** Runs `fn` after the current transaction commits; at once outside one. */
  afterCommit(fn: () => void): void {
    if (this.inside()) this.context.getStore()!.afterCommit.push(fn);
    else fn();
  }

  /** Runs `fn` alone once everything uncommitted is committed (closing the connection must not roll a group back). */
  exclusive<R>(fn: () => R): Promise<R> {
    return this.acquire().then(() => {
      try {
        this.commit();
        return fn();
      } finally {
        this.release();
      }
    });
  }

  /** Whether the caller runs inside the transaction that holds the connection now. */
  private inside(): boolean {
    const tx = this.context.getStore();
    return tx !== undefined && tx === this.holder;
  }

  /** The open commit group, beginning one (and its commit at the end of this turn) if none is open. */
  private open(): CommitGroup {
    if (this.group) return this.group;
    this.connection.exec('BEGIN IMMEDIATE');
    const group = new CommitGroup();
    this.group = group;
    this.schedule(() => {
      if (this.group !== group) return;
      if (this.locked) this.commitDue = true;
      else this.commit();
    });
    return group;
  }

  /** A call in the open group, in a savepoint of its own; its result is handed over after the commit. */
  private join<R>(fn: () => R): Promise<R> {
    const group = this.open();
    let result: R;
    try {
      this.connection.exec('SAVEPOINT errand_call');
      result = fn();
      this.connection.exec('RELEASE errand_call');
    } catch (err) {
      this.undo('errand_call', err);
      return Promise.reject(err);
    }
    return group.settled().then(() => result);
  }

  /** Takes back one participant's writes; if SQLite has already rolled the whole group back (a full disk, an I/O error), every participant hears of it. */
  private undo(savepoint: string, err: unknown): void {
    if (this.connection.inTransaction) {
      this.connection.exec(`ROLLBACK TO ${savepoint}`);
      this.connection.exec(`RELEASE ${savepoint}`);
      return;
    }
    const group = this.group;
    this.group = null;
    group?.fail(err);
  }

  /** Commits the open group and settles its participants (or, if the commit fails, rolls back and rejects them all). */
  private commit(): void {
    this.commitDue = false;
    const group = this.group;
    if (!group) return;
    this.group = null;
    try {
      this.connection.exec('COMMIT');
    } catch (err) {
      if (this.connection.inTransaction) this.connection.exec('ROLLBACK');
      group.fail(err);
      return;
    }
    group.succeed();
  }

  private acquire(): Promise<void> {
    if (!this.locked) {
      this.locked = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Commits the group if its turn ended while the connection was held; then hands the connection to the next waiter (it stays locked), or unlocks it. */
  private release(): void {
    if (this.commitDue) this.commit();
    const next = this.waiting.shift();
    if (next) next();
    else this.locked = false;
  }
}

/** Runs `fn` now, as a settled promise. */
function attempt<R>(fn: () => R): Promise<R> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err);
  }
}
