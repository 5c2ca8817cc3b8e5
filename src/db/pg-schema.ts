import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import {
  OUTBOX_PURPOSES,
  OUTBOX_STATUSES,
  RUN_STATUSES,
  TASK_STATUSES,
  type ImagePart,
  type MessageRole,
  type OutboxPayload,
  type PendingQuestion,
  type StoredToolCall,
} from './schema.js';
import { conversationKey, epochMs } from './pg-columns.js';

/*
 * The PostgreSQL twin of schema.ts, table by table, with the same table, column and index names, so
 * one store interface can sit on either. Differences, each on purpose:
 * - Epoch-millisecond columns are `bigint` read as JS numbers (`mode: 'number'`): int4 ends in 1970 + 24 days.
 * - JSON columns are `jsonb`: PostgreSQL rejects malformed JSON at write time, and node-postgres hands back
 *   parsed values, so rows carry the same `$type<…>()` shapes as SQLite's `text({ mode: 'json' })` columns.
 * - `tasks.blocked` is a real boolean (SQLite stores 0/1 behind the same `boolean` row type).
 * - Conversation keys sort byte-wise (`collate "C"`), as SQLite's BINARY text does.
 * - Auto-increment ids are identity columns; `messages` and `outbox` ids are bigint, as they grow fastest.
 * - Scale-out additions: `runs.owner` / `runs.lease_until` (who runs it and until when that claim holds),
 *   `channel_pacing` (the earliest time the next post may go to a channel, shared by every process) and
 *   `outbox_claims` (which process posts a conversation's outbox rows right now).
 */

/** One thread of talk: `platform:workspace:channel:thread` (thread `-` when none). */
export const conversations = pgTable(
  'conversations',
  {
    id: conversationKey('id').primaryKey(),
    platform: text('platform').notNull(),
    workspace: text('workspace').notNull(),
    channel: text('channel').notNull(),
    thread: text('thread'),
    /** IANA timezone of the last person who spoke here, when the platform tells it. */
    timezone: text('timezone'),
    createdAt: epochMs('created_at').notNull(),
    updatedAt: epochMs('updated_at').notNull(),
  },
  (t) => [index('conversations_channel_idx').on(t.platform, t.workspace, t.channel)],
);

/** One execution of the agent loop for one goal; while `running` it belongs to one process, under a lease. */
export const runs = pgTable(
  'runs',
  {
    id: text('id').primaryKey(),
    conversationId: conversationKey('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    taskId: integer('task_id').references(() => tasks.id, { onDelete: 'set null' }),
    status: text('status', { enum: RUN_STATUSES }).notNull(),
    steps: integer('steps').notNull().default(0),
    question: jsonb('question').$type<PendingQuestion>(),
    askExpiresAt: epochMs('ask_expires_at'),
    summary: text('summary'),
    error: text('error'),
    /** Model tokens (prompt + completion) this run has used, from the endpoint's reported usage. */
    tokens: integer('tokens').notNull().default(0),
    /** The person the run acts for (see schema.ts). */
    principal: text('principal'),
    principalRoles: jsonb('principal_roles').$type<string[]>(),
    startedAt: epochMs('started_at').notNull(),
    updatedAt: epochMs('updated_at').notNull(),
    endedAt: epochMs('ended_at'),
    /** The process working on it (see cluster/process-id.ts); null while nobody does. */
    owner: text('owner'),
    /** Until when the owner's claim holds; a `running` run past it is taken over by another process. */
    leaseUntil: epochMs('lease_until'),
    /**
     * Goes up each time the run gets an owner (claimed, resumed, adopted, taken over): every write of the
     * executing run is conditional on the owner and generation it was claimed with (run-records/run-fence.ts).
     */
    leaseGeneration: integer('lease_generation').notNull().default(0),
  },
  (t) => [
    uniqueIndex('runs_one_active_per_conversation')
      .on(t.conversationId)
      .where(sql`status in ('running', 'waiting_user')`),
    index('runs_ask_expiry_idx')
      .on(t.askExpiresAt)
      .where(sql`status = 'waiting_user'`),
    index('runs_conversation_idx').on(t.conversationId, t.startedAt),
    /** Leases that ran out: what every process scans to take over a dead process's runs. */
    index('runs_lease_idx')
      .on(t.leaseUntil)
      .where(sql`status = 'running'`),
    /** Newest runs first, for the web console's run list. */
    index('runs_started_idx').on(t.startedAt),
  ],
);

/** The per-conversation to-do list; every run works on exactly one task. */
export const tasks = pgTable(
  'tasks',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    conversationId: conversationKey('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    description: text('description').notNull(),
    status: text('status', { enum: TASK_STATUSES }).notNull().default('pending'),
    sequence: integer('sequence').notNull(),
    blockedBy: jsonb('blocked_by')
      .$type<number[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    /** True while any task in blockedBy is not completed; kept in step so readiness is an index lookup. */
    blocked: boolean('blocked').notNull().default(false),
    resultSummary: text('result_summary'),
    failReason: text('fail_reason'),
    attempts: integer('attempts').notNull().default(0),
    /** Earliest start (retry backoff); 0 = now. */
    notBefore: epochMs('not_before').notNull().default(0),
    createdBy: text('created_by', { enum: ['user', 'agent', 'schedule'] }).notNull(),
    /** Platform user who asked (mentioned in questions), when known. */
    requestedBy: text('requested_by'),
    /** The principal's Discord role ids as of the request. */
    requesterRoles: jsonb('requester_roles').$type<string[]>(),
    /** The task descends from a scheduled prompt: it may not create schedules. */
    fromSchedule: boolean('from_schedule').notNull().default(false),
    /** Platform message that created it, when it came from a message. */
    sourceMessageId: text('source_message_id'),
    scheduleId: integer('schedule_id'),
    /** Images attached to the request, carried into the goal message when the task's run starts. */
    images: jsonb('images').$type<ImagePart[]>(),
    createdAt: epochMs('created_at').notNull(),
    updatedAt: epochMs('updated_at').notNull(),
    startedAt: epochMs('started_at'),
    finishedAt: epochMs('finished_at'),
  },
  (t) => [
    index('tasks_ready_idx')
      .on(t.notBefore, t.conversationId)
      .where(sql`status = 'pending' and blocked = false`),
    index('tasks_conversation_idx').on(t.conversationId, t.sequence),
    /** Open work by conversation key: channel-wide /tasks and /stop read a key range of it. */
    index('tasks_open_idx')
      .on(t.conversationId)
      .where(sql`status in ('pending', 'in_progress')`),
  ],
);

/** The transcript: every user message, model step and tool result, in order. */
export const messages = pgTable(
  'messages',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    conversationId: conversationKey('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    runId: text('run_id'),
    role: text('role').$type<MessageRole>().notNull(),
    content: text('content'),
    toolCalls: jsonb('tool_calls').$type<StoredToolCall[]>(),
    toolCallId: text('tool_call_id'),
    /** Who wrote a user message (platform user id). */
    authorId: text('author_id'),
    platformMessageId: text('platform_message_id'),
    /** Images sent with a user message (OpenAI image parts as data URLs); null for text only. */
    images: jsonb('images').$type<ImagePart[]>(),
    createdAt: epochMs('created_at').notNull(),
    /** The person this row is private to (see schema.ts); null: public in the conversation. */
    privateTo: text('private_to'),
  },
  (t) => [
    index('messages_conversation_idx').on(t.conversationId, t.id),
    index('messages_private_idx')
      .on(t.conversationId, t.privateTo, t.id)
      .where(sql`private_to is not null`),
  ],
);

/** The durable outbox (see schema.ts): one row per platform message, delivered in id order. */
export const outbox = pgTable(
  'outbox',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    conversationId: conversationKey('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    runId: text('run_id'),
    purpose: text('purpose', { enum: OUTBOX_PURPOSES }).notNull(),
    payload: jsonb('payload').$type<OutboxPayload>().notNull(),
    status: text('status', { enum: OUTBOX_STATUSES }).notNull().default('pending'),
    platformMessageId: text('platform_message_id'),
    /** Posts tried so far; above 0 the platform may already hold the message (look before posting again). */
    attempts: integer('attempts').notNull().default(0),
    /** Earliest next try after a transient failure; 0 = now. */
    notBefore: epochMs('not_before').notNull().default(0),
    error: text('error'),
    createdAt: epochMs('created_at').notNull(),
    postedAt: epochMs('posted_at'),
  },
  (t) => [
    index('outbox_pending_idx')
      .on(t.conversationId, t.id)
      .where(sql`status = 'pending'`),
    index('outbox_preview_idx')
      .on(t.runId)
      .where(sql`status = 'preview'`),
  ],
);

/** Inbound events already handled; the primary key makes de-duplication hold across processes. */
export const processedEvents = pgTable(
  'processed_events',
  {
    key: text('key').primaryKey(),
    receivedAt: epochMs('received_at').notNull(),
  },
  (t) => [index('processed_events_received_idx').on(t.receivedAt)],
);

/** Tools a person allowed for a whole conversation ("Always allow here"). */
// Superseded by `tool_consents` (pg-privacy-schema.ts), which names whose consent each is; no longer read or written.
export const toolGrants = pgTable(
  'tool_grants',
  {
    conversationId: conversationKey('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    tool: text('tool').notNull(),
    grantedBy: text('granted_by'),
    createdAt: epochMs('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.tool] })],
);

/**
 * Which process posts a conversation's pending outbox rows, and until when that claim holds without a
 * renewal (store/postgres/pg-outbox-claims.ts). One row per conversation being posted to, deleted when its
 * holder has drained the rows; a holder that died loses it once `claim_until` passes. SQLite needs no such
 * table: one process owns the file, so its claims live in memory.
 */
export const outboxClaims = pgTable('outbox_claims', {
  conversationId: conversationKey('conversation_id')
    .primaryKey()
    .references(() => conversations.id, { onDelete: 'cascade' }),
  owner: text('owner').notNull(),
  claimUntil: epochMs('claim_until').notNull(),
});

export type PgRunRow = typeof runs.$inferSelect;

// Outbound pacing shared by every process, in its own file.
export * from './pg-pacing-schema.js';

// Scheduled prompts, in their own file.
export * from './pg-schedule-schema.js';
// The per-person OAuth sign-ins to MCP servers, in their own file.
export * from './pg-oauth-schema.js';
export * from './pg-memory-schema.js';
export * from './pg-elicitation-schema.js';

// Usage per model, run costs and run traces (DESIGN.md "Traces and cost"), in their own file.
export * from './pg-cost-schema.js';

// Skills enabled by admins, pinned to their folders' hashes (DESIGN.md "Skills"), in their own file.
export * from './pg-skills-schema.js';
// The web console's sign-in links and sessions, and the audit log (DESIGN.md "The web console"), in their own file.
export * from './pg-console-schema.js';
// Conversations' sandbox workspaces (DESIGN.md "Running code in a sandbox"), in their own file.
export * from './pg-workspace-schema.js';
// What is private to one person in a shared conversation, in its own file.
export * from './pg-privacy-schema.js';
// What keeps one person's rights theirs in a shared thread (per-person consents, schedules' launches, deployment keys), in its own file.
export * from './pg-rights-schema.js';
export * from './pg-outbox-files-schema.js';
