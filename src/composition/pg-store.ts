import { AsyncLocalStorage } from 'node:async_hooks';
import type { Clock } from '../clock.js';
import { closePostgres, type PgDb } from '../db/pg-client.js';
import { poolUse } from '../db/pg-pool-use.js';
// The whole Store, every feature's store included: what this file assembles.
import type { ErrandStore as Store } from './errand-store.js';
import { createPgAttachmentTaskStore } from '../store/postgres/pg-attachment-task-store.js';
import { createPgCatchUpQueries } from '../store/postgres/pg-catch-up-queries.js';
import { createPgConnectionStore } from '../sign-in/store/pg-connection-store.js';
import { createPgConversationStore } from '../store/postgres/pg-conversation-store.js';
import { createPgMemoryStore } from '../memory/store/pg-memory-store.js';
import { createPgElicitationStore } from '../questions/store/pg-elicitation-store.js';
import { createPgEventDedupe } from '../store/postgres/pg-event-dedupe.js';
import type { PgExecutor } from '../store/postgres/pg-executor.js';
import { readPgGauges } from '../store/postgres/pg-gauges.js';
import { createPgOpenWorkStore } from '../store/postgres/pg-open-work-store.js';
import { createPgOutboxStore } from '../store/postgres/pg-outbox-store.js';
import { createPgOutboxFileStore } from '../store/postgres/pg-outbox-file-store.js';
import { createPgRunStore } from '../runs/store/pg-run-store.js';
import type { RunOwnership } from '../store/postgres/pg-run-ownership.js';
import { createPgScheduleStore } from '../schedules/store/pg-schedule-store.js';
import { createPgSkillPinStore } from '../store/postgres/pg-skill-pin-store.js';
import { createPgTaskStore } from '../store/postgres/pg-task-store.js';
import { createPgToolGrantStore } from '../store/postgres/pg-tool-grant-store.js';
import { createPgTranscriptStore } from '../store/postgres/pg-transcript-store.js';
import { createPgUsageStore } from '../store/postgres/pg-usage-store.js';
import { createPgCostStore } from '../store/postgres/pg-cost-store.js';
import { createPgRunTraceStore } from '../store/postgres/pg-run-trace-store.js';
import { createPgWorkspaceStore } from '../sandbox/store/pg-workspace-store.js';
import { createPgPrivateAnswerStore } from '../store/postgres/pg-private-answer-store.js';
import { pgWriteProblem } from '../store/postgres/pg-write-problem.js';
import { runTransaction } from '../store/postgres/pg-transaction.js';
import { runDetached } from '../store/run-detached.js';
import { createPgAuditStore } from '../store/postgres/pg-audit-store.js';
import { createPgAdminSessionStore } from '../store/postgres/pg-admin-session-store.js';
import { createPgConsoleQueries } from '../store/postgres/pg-console-queries.js';
import { createPgRunClaims } from '../store/postgres/pg-run-claims.js';
import { createPgMentionAccepts } from '../store/postgres/pg-mention-accepts.js';

export interface PostgresStoreOptions {
  /** This process's id and lease length: recorded on the runs it starts (see cluster/run-leases.ts). */
  ownership?: RunOwnership;
  /** Whether `close()` ends the pool (false when the caller shares it). */
  ownsDb?: boolean;
  /**
   * Whether to check that no flow inside an open transaction calls the root store (default: the environment's
   * `ERRAND_CHECK_TX_CONTEXT=1`, set by the test run). Such a call would run on another connection, outside
   * the transaction; checking needs an AsyncLocalStorage, whose promise hook costs every promise of the
   * process while a transaction is open, so it is a test run's check, not production's.
   */
  checkTransactionContext?: boolean;
}

/** The PostgreSQL store, with its drizzle handle for the cluster primitives and its run ownership. */
export interface PostgresStore extends Store {
  readonly db: PgDb;
  readonly ownership: RunOwnership | null;
}

/** One open transaction: its executor-bound store and what waits for its commit. */
interface OpenTransaction {
  readonly store: Store;
  readonly afterCommit: (() => void)[];
  done: boolean;
}

/** How each sub-store is made on one executor (the pool, or one transaction). */
const FACTORIES = {
  runs: (ex, clock, ownership) => createPgRunStore(ex, clock, ownership),
  tasks: (ex, clock) => createPgTaskStore(ex, clock),
  schedules: (ex) => createPgScheduleStore(ex),
  conversations: (ex, clock) => createPgConversationStore(ex, clock),
  transcript: (ex, clock) => createPgTranscriptStore(ex, clock),
  outbox: (ex, clock, ownership) => createPgOutboxStore(ex, clock, ownership),
  outboxFiles: (ex) => createPgOutboxFileStore(ex),
  usage: (ex) => createPgUsageStore(ex),
  cost: (ex) => createPgCostStore(ex),
  traces: (ex, clock) => createPgRunTraceStore(ex, clock),
  grants: (ex, clock) => createPgToolGrantStore(ex, clock),
  dedupe: (ex) => createPgEventDedupe(ex),
  attachments: (ex) => createPgAttachmentTaskStore(ex),
  openWork: (ex) => createPgOpenWorkStore(ex),
  connections: (ex, clock) => createPgConnectionStore(ex, clock),
  memory: (ex, clock) => createPgMemoryStore(ex, clock),
  elicitations: (ex) => createPgElicitationStore(ex),
  skills: (ex) => createPgSkillPinStore(ex),
  audit: (ex) => createPgAuditStore(ex),
  admin: (ex) => createPgAdminSessionStore(ex),
  consoleQueries: (ex) => createPgConsoleQueries(ex),
  privateAnswers: (ex, clock) => createPgPrivateAnswerStore(ex, clock),
  catchUp: (ex) => createPgCatchUpQueries(ex),
  workspaces: (ex) => createPgWorkspaceStore(ex),
  claims: (ex, clock, ownership) => createPgRunClaims(ex, clock, ownership),
  mentions: (ex, clock, ownership) => createPgMentionAccepts(ex, clock, ownership),
} satisfies Record<string, (ex: PgExecutor, clock: Clock, ownership: RunOwnership | null) => unknown>;

type SubStores = { [K in keyof typeof FACTORIES]: ReturnType<(typeof FACTORIES)[K]> };

/** Every sub-store bound to one executor, made at once (the root store's, routed below). */
function subStores(ex: PgExecutor, clock: Clock, ownership: RunOwnership | null): SubStores {
  const out: Record<string, unknown> = {};
  for (const [name, make] of Object.entries(FACTORIES)) out[name] = make(ex, clock, ownership);
  return out as SubStores;
}

/**
 * The sub-stores of one transaction, each made at its first use: a transaction touches two or three of
 * the two dozen, and it is opened several times per mention.
 */
function lazySubStores(ex: PgExecutor, clock: Clock, ownership: RunOwnership | null): SubStores {
  const out: Record<string, unknown> = {};
  for (const [name, make] of Object.entries(FACTORIES)) {
    Object.defineProperty(out, name, {
      enumerable: true,
      configurable: true,
      get() {
        const made = make(ex, clock, ownership);
        Object.defineProperty(out, name, { value: made, enumerable: true });
        return made;
      },
    });
  }
  return out as SubStores;
}

/**
 * The root store's sub-stores, checked: a call that returns a promise (a statement) from a flow inside an open
 * transaction is refused, because it would run on another connection, outside that transaction (it would not
 * see the transaction's rows, and could wait for a lock the transaction holds). Synchronous helpers
 * (`refOf`) are fine.
 */
function checked(root: SubStores, inTransaction: () => boolean): SubStores {
  const out: Record<string, unknown> = {};
  for (const [name, sub] of Object.entries(root) as unknown as [keyof SubStores, Record<string, unknown>][]) {
    const wrapped: Record<string, unknown> = {};
    for (const [method, fn] of Object.entries(sub)) {
      wrapped[method] =
        typeof fn !== 'function'
          ? fn
          : (...args: unknown[]) => {
              const result = (fn as (...a: unknown[]) => unknown).apply(sub, args);
              if (inTransaction() && typeof (result as { then?: unknown } | null)?.then === 'function') {
                (result as Promise<unknown>).catch(() => undefined);
                return Promise.reject(misuse(`${String(name)}.${method}`));
              }
              return result;
            };
    }
    out[name] = wrapped;
  }
  return out as SubStores;
}

/** The error of a root-store call made inside an open transaction (checked stores only). */
function misuse(what: string): Error {
  return new Error(
    `${what} was called on the root store inside an open transaction: it would run outside that transaction; use the transaction's store (the \`tx\` given to \`atomically\`)`,
  );
}

/**
 * The Store on a PostgreSQL pool shared by any number of Errand processes. `atomically` runs its work
 * in one transaction on one pooled connection (`runTransaction`), through a store bound to it; a nested `atomically`
 * on that store joins it, and so do its `afterCommit` callbacks, run once its COMMIT has returned.
 *
 * The transaction is carried explicitly, in the `tx` handed to the body (Store's contract: inside, every
 * store call goes through `tx`), not looked up in an AsyncLocalStorage: on Node 20 an enabled one hooks
 * every promise of the process, and with transactions open across round trips it was on nearly all the
 * time (≈ 12 % of Errand's CPU on PostgreSQL, bench/OVERHEAD.md, issue 40). Calls on the root store go to
 * the pool. Test runs check that no transaction's flow calls the root store (`checkTransactionContext`).
 */
export function createPostgresStore(db: PgDb, clock: Clock, options: PostgresStoreOptions = {}): PostgresStore {
  const ownership = options.ownership ?? null;
  const checking = options.checkTransactionContext ?? process.env.ERRAND_CHECK_TX_CONTEXT === '1';
  const context = checking ? new AsyncLocalStorage<OpenTransaction>() : null;
  const inTransaction = (): boolean => {
    const tx = context?.getStore();
    return tx !== undefined && !tx.done;
  };
  // Checking only: the AsyncLocalStorage is turned off whenever no transaction is open.
  let openTransactions = 0;

  const attempt = async <T>(work: (tx: Store) => Promise<T>): Promise<T> => {
    const afterCommit: (() => void)[] = [];
    const opened: OpenTransaction[] = [];
    openTransactions++;
    try {
      const result = await runTransaction(db, async (ex) => {
        const tx: OpenTransaction = { store: bindTransaction(ex, afterCommit), afterCommit, done: false };
        opened.push(tx);
        return context ? context.run(tx, () => work(tx.store)) : work(tx.store);
      });
      for (const tx of opened) tx.done = true;
      for (const fn of afterCommit) runDetached(fn);
      return result;
    } finally {
      for (const tx of opened) tx.done = true;
      if (--openTransactions === 0) context?.disable();
    }
  };

  const atomically = async <T>(work: (tx: Store) => Promise<T>): Promise<T> => {
    if (inTransaction()) throw misuse('atomically');
    for (let tries = 1; ; tries++) {
      try {
        return await attempt(work);
      } catch (err) {
        // PostgreSQL broke a lock cycle (or a serialization conflict) by rolling this one back: a
        // transaction body only awaits store calls, so running it again is safe.
        if (tries >= MAX_TRANSACTION_TRIES || !isRetryableConflict(err)) throw err;
      }
    }
  };

  const bindTransaction = (ex: PgExecutor, pending: (() => void)[]): Store => {
    const txStore = Object.assign(lazySubStores(ex, clock, ownership), {
      probe: root.probe,
      atomically: <T>(work: (tx: Store) => Promise<T>) => work(txStore),
      afterCommit: (fn: () => void) => void pending.push(fn),
      close: root.close,
    }) as Store;
    return txStore;
  };

  const subs = subStores(db, clock, ownership);
  const root: PostgresStore = {
    db,
    ownership,
    ...(context ? checked(subs, inTransaction) : subs),
    probe: { gauges: () => readPgGauges(db), writeProblem: () => pgWriteProblem(db), pool: () => poolUse(db.$client) },
    atomically,
    afterCommit(fn) {
      if (inTransaction()) throw misuse('afterCommit');
      fn();
    },
    close: async () => {
      if (options.ownsDb) await closePostgres(db);
    },
  };
  return root;
}

/** Whether a store is the PostgreSQL one (start-up wiring of the cluster primitives, tests). */
export function isPostgresStore(store: Store): store is PostgresStore {
  return 'db' in store && 'ownership' in store;
}

/** How often `atomically` runs a body that PostgreSQL rolled back to resolve a deadlock or serialization conflict. */
const MAX_TRANSACTION_TRIES = 3;

/** `40P01` deadlock_detected, `40001` serialization_failure: the server's "try again". */
function isRetryableConflict(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (code === '40P01' || code === '40001') return true;
  }
  return false;
}
