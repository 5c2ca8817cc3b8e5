import type { Clock } from '../clock.js';
import { closeDatabase, type Db } from '../db/client.js';
// The whole Store, every feature's store included: what this file assembles.
import type { ErrandStore as Store } from './errand-store.js';
import { databaseWriteProblem } from '../store/sqlite/database-writable.js';
import { createSqliteAttachmentTaskStore } from '../store/sqlite/sqlite-attachment-task-store.js';
import { createSqliteCatchUpQueries } from '../store/sqlite/sqlite-catch-up-queries.js';
import { createSqliteConnectionStore } from '../sign-in/store/sqlite-connection-store.js';
import { createSqliteConversationStore } from '../store/sqlite/sqlite-conversation-store.js';
import { createSqliteMemoryStore } from '../memory/store/sqlite-memory-store.js';
import { createSqliteElicitationStore } from '../questions/store/sqlite-elicitation-store.js';
import { createSqliteEventDedupe } from '../store/sqlite/sqlite-event-dedupe.js';
import { createSqliteGaugeReader } from '../store/sqlite/sqlite-gauges.js';
import { createSqliteOpenWorkStore } from '../store/sqlite/sqlite-open-work-store.js';
import { createSqliteOutboxStore } from '../store/sqlite/sqlite-outbox-store.js';
import { createSqliteOutboxFileStore } from '../store/sqlite/sqlite-outbox-file-store.js';
import { createSqliteRunStore } from '../store/sqlite/sqlite-run-store.js';
import { createSqliteScheduleStore } from '../schedules/store/sqlite-schedule-store.js';
import { createSqliteSkillPinStore } from '../store/sqlite/sqlite-skill-pin-store.js';
import { createSqliteTaskStore } from '../store/sqlite/sqlite-task-store.js';
import { createSqliteToolGrantStore } from '../store/sqlite/sqlite-tool-grant-store.js';
import { createSqliteTranscriptStore } from '../store/sqlite/sqlite-transcript-store.js';
import { createSqliteUsageStore } from '../store/sqlite/sqlite-usage-store.js';
import { createSqliteCostStore } from '../store/sqlite/sqlite-cost-store.js';
import { createSqliteRunTraceStore } from '../store/sqlite/sqlite-run-trace-store.js';
import { createSqliteWorkspaceStore } from '../sandbox/store/sqlite-workspace-store.js';
import { createSqlitePrivateAnswerStore } from '../store/sqlite/sqlite-private-answer-store.js';
import { gated, type CallRunner } from '../store/sqlite/synchronous.js';
import { createSqliteAuditStore } from '../store/sqlite/sqlite-audit-store.js';
import { createSqliteAdminSessionStore } from '../store/sqlite/sqlite-admin-session-store.js';
import { createSqliteConsoleQueries } from '../store/sqlite/sqlite-console-queries.js';
import { TransactionGate } from '../store/sqlite/transaction-gate.js';

/** The SQLite store, with its drizzle handle for SQLite-only tools (tests, benchmarks, migrations). */
export interface SqliteStore extends Store {
  readonly db: Db;
}

/**
 * The Store on one better-sqlite3 connection (an open, migrated `Db`). Every table's statements are
 * prepared once, as before; the transaction gate turns them into the async interface and keeps
 * other flows out of an open transaction. `close()` closes the database only when `ownsDb`.
 */
export function createSqliteStore(db: Db, clock: Clock, options: { ownsDb?: boolean } = {}): SqliteStore {
  const gate = new TransactionGate(db.$client);
  const run: CallRunner = (call) => gate.call(call);
  const gauges = createSqliteGaugeReader(db);
  const store: SqliteStore = {
    db,
    runs: gated(createSqliteRunStore(db, clock), run),
    tasks: gated(createSqliteTaskStore(db, clock), run),
    schedules: gated(createSqliteScheduleStore(db), run),
    conversations: gated(createSqliteConversationStore(db, clock), run, ['refOf']),
    transcript: gated(createSqliteTranscriptStore(db, clock), run),
    outbox: gated(createSqliteOutboxStore(db, clock), run),
    outboxFiles: gated(createSqliteOutboxFileStore(db), run),
    usage: gated(createSqliteUsageStore(db), run),
    cost: gated(createSqliteCostStore(db), run),
    traces: gated(createSqliteRunTraceStore(db, clock), run),
    grants: gated(createSqliteToolGrantStore(db, clock), run),
    dedupe: gated(createSqliteEventDedupe(db), run),
    attachments: gated(createSqliteAttachmentTaskStore(db), run),
    openWork: gated(createSqliteOpenWorkStore(db), run),
    connections: gated(createSqliteConnectionStore(db, clock), run),
    memory: gated(createSqliteMemoryStore(db, clock), run),
    elicitations: gated(createSqliteElicitationStore(db), run),
    skills: gated(createSqliteSkillPinStore(db), run),
    audit: gated(createSqliteAuditStore(db), run),
    admin: gated(createSqliteAdminSessionStore(db), run),
    consoleQueries: gated(createSqliteConsoleQueries(db), run),
    privateAnswers: gated(createSqlitePrivateAnswerStore(db, clock), run),
    catchUp: gated(createSqliteCatchUpQueries(db), run),
    workspaces: gated(createSqliteWorkspaceStore(db), run),
    probe: { gauges: () => run(gauges), writeProblem: () => run(() => databaseWriteProblem(db)) },
    // One connection: the transaction's own calls go through the same store (the gate knows them).
    atomically: (work) => gate.atomically(() => work(store)),
    afterCommit: (fn) => gate.afterCommit(fn),
    close: () => gate.exclusive(() => (options.ownsDb ? closeDatabase(db) : undefined)),
  };
  return store;
}

/** Whether a store is the SQLite one (tests and benchmarks that read the file directly). */
export function isSqliteStore(store: Store): store is SqliteStore {
  return 'db' in store;
}
