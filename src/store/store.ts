import type { AttachmentTaskStore } from '../attachments/attachment-task-store.js';
import type { UsageStore } from '../budget/usage-store.js';
import type { CostStore } from '../budget/cost-store.js';
import type { RunTraceStore } from '../telemetry/run-trace-store.js';
import type { ConversationStore } from '../conversations/conversation-store.js';
import type { OpenWorkStore } from '../conversations/open-work-by-person.js';
import type { ToolGrantStore } from '../conversations/tool-grant-store.js';
import type { TranscriptStore } from '../conversations/transcript-store.js';
import type { PoolUse } from '../db/pg-pool-use.js';
import type { GaugeReadings } from '../metrics/metric-gauges.js';
import type { OutboxStore } from './outbox-store.js';
import type { OutboxFileStore } from './outbox-file-store.js';
import type { RunStore } from '../run-records/run-store.js';
import type { ElicitationStore } from '../run-records/elicitation-store.js';
import type { EventDedupe } from './event-dedupe.js';
import type { SkillPinStore } from '../skills/skill-pin-store.js';
import type { TaskService } from '../tasks/task-service.js';
import type { AuditStore } from '../audit/audit-store.js';
import type { AdminSessionStore } from '../admin/admin-session-store.js';
import type { ConsoleQueries } from '../admin/console-queries.js';
import type { PrivateAnswerStore } from '../privacy/private-answer-store.js';
import type { RunClaims } from '../run-records/run-claims.js';
import type { MentionAccepts } from '../tasks/mention-accepts.js';

/** The newest platform message Errand saw in a conversation (a transcript row or a task's source). */
export interface SeenMessage {
  readonly id: string;
  readonly at: number;
}

/** What start-up catch-up reads: conversations with open work, and where each one was left. */
export interface CatchUpQueries {
  /** Conversations with an active or waiting run or an open task, at most `limit`. */
  openConversations(limit: number): Promise<string[]>;
  /** The newest platform message id recorded for the conversation; null when none is. */
  lastSeen(conversationId: string): Promise<SeenMessage | null>;
}

/** What `/healthz` and `/metrics` ask of the database. */
export interface DatabaseProbe {
  /** Counts for the gauges, read at scrape time from small indexes. */
  gauges(): Promise<GaugeReadings>;
  /** Null when the database accepts writes now (nothing is committed by asking), else why not. */
  writeProblem(): Promise<string | null>;
  /** How the connection pool is used now and since start (PostgreSQL only: SQLite has one connection). */
  pool?(): PoolUse | null;
}

/**
 * The one store of the core: every table Errand keeps, behind asynchronous methods, so the same
 * core runs on the embedded SQLite file or on a shared PostgreSQL database.
 *
 * Transactions: `atomically(work)` runs `work` in one database transaction, committed when it
 * resolves and rolled back when it rejects (the error is rethrown). Inside, use the `tx` it is
 * given for every store call. A transaction body only awaits store calls — never the network, a
 * platform or the model — because the connection (SQLite: the only one) is held until it ends:
 * store calls from outside the transaction wait meanwhile. A nested `atomically` runs its body in
 * the transaction already open.
 */
export interface Store {
  readonly runs: RunStore;
  readonly tasks: TaskService;
  readonly conversations: ConversationStore;
  readonly transcript: TranscriptStore;
  readonly outbox: OutboxStore;
  /** The bytes of the outbox's file posts, kept until each is settled. */
  readonly outboxFiles: OutboxFileStore;
  readonly usage: UsageStore;
  /** Usage per model and what it cost (DESIGN.md "Traces and cost"). */
  readonly cost: CostStore;
  /** The trace each run started in, for the link of a resumed run (written only while tracing is on). */
  readonly traces: RunTraceStore;
  readonly grants: ToolGrantStore;
  readonly dedupe: EventDedupe;
  readonly attachments: AttachmentTaskStore;
  readonly openWork: OpenWorkStore;
  /** Questions MCP servers ask runs' principals mid-call, answerable on any process (DESIGN.md "MCP questions"). */
  readonly elicitations: ElicitationStore;
  /** Skills admins enabled with `/skills enable`, pinned to their folders' hashes (DESIGN.md "Skills"). */
  readonly skills: SkillPinStore;
  /** The audit log (DESIGN.md "The web console"): every tool call, approval and change, chained by hash. */
  readonly audit: AuditStore;
  /** The web console's sign-in links and sessions, by the hashes of their secrets. */
  readonly admin: AdminSessionStore;
  /** What the web console reads across the whole database. */
  readonly consoleQueries: ConsoleQueries;
  /** Answers built on one person's private material, held for their Share / Keep private choice. */
  readonly privateAnswers: PrivateAnswerStore;
  readonly catchUp: CatchUpQueries;
  readonly probe: DatabaseProbe;
  /** A task's claim as one call (PostgreSQL: one function call); absent, the claim makes its calls one by one (run-claim.ts). */
  readonly claims?: RunClaims;
  /** A mention's accept as one call (PostgreSQL: one function call); absent, the dispatcher makes its calls one by one. */
  readonly mentions?: MentionAccepts;
  /** Runs `work` in one transaction (see the interface's comment); resolves with its result once committed. */
  atomically<T>(work: (tx: Store) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` once the transaction this call is made in has committed (never when it rolls back);
   * outside a transaction, at once. For what must only see committed rows, like waking the poster.
   */
  afterCommit(fn: () => void): void;
  /** Waits for the transaction under way, then closes the connection. */
  close(): Promise<void>;
}

/**
 * The core Store with a feature's own stores beside it (`StoreWith<{ workspaces: WorkspaceStore }>`), as its
 * transactions hand it over too: what a layer holds when it needs a feature's table. The whole store
 * (src/composition/errand-store.ts) is one of each, so the features plug their stores in from above.
 */
export type StoreWith<M> = Omit<Store, 'atomically'> &
  M & { atomically<T>(work: (tx: StoreWith<M>) => Promise<T>): Promise<T> };
