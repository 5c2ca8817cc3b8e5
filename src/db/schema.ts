import { sql } from 'drizzle-orm';
import type { ImagePart, MessageRole, PendingQuestion, PostPurpose, StoredToolCall } from '../records/stored-values.js';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** Run states; `running` and `waiting_user` are "active" (at most one per conversation). */
export const RUN_STATUSES = ['running', 'waiting_user', 'completed', 'failed', 'cancelled', 'interrupted'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const TASK_STATUSES = ['pending', 'in_progress', 'completed', 'failed', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export type {
  ImagePart,
  MessageRole,
  PendingApproval,
  PendingQuestion,
  StoredToolCall,
} from '../records/stored-values.js';

/**
 * Outbox rows: `pending` until the platform accepted the post (`posted`) or refused it for good (`failed`).
 * `preview`: a message of a live answer preview, already on the platform, whose answer is not finished yet;
 * it becomes `posted` when the answer is finished through it, or a pending `retract` when its run was interrupted.
 */
export const OUTBOX_STATUSES = ['pending', 'posted', 'failed', 'preview'] as const;
export type OutboxStatus = (typeof OUTBOX_STATUSES)[number];

/**
 * Why a post exists: the run's answer text, a send_update, a question or approval it waits on, or a note about
 * the run; `retract` removes (or marks) the unfinished preview message in `platform_message_id` of an interrupted run;
 * `edit` changes a posted message (payload `editOf`); `ephemeral` is a notice only one person sees (payload `visibleTo`).
 * `files` posts a run's output files as one message (their bytes in `outbox_files`).
 * A text column without a constraint in both databases: a new purpose needs no migration.
 */
export const OUTBOX_PURPOSES = [
  'answer',
  'update',
  'question',
  'approval',
  'note',
  'retract',
  'edit',
  'ephemeral',
  'files',
] as const satisfies readonly (PostPurpose | 'retract' | 'edit' | 'ephemeral' | 'files')[];
export type OutboxPurpose = (typeof OUTBOX_PURPOSES)[number];

/** One platform message to post, as stored: the text piece, whom it mentions, its buttons. */
export interface OutboxPayload {
  text: string;
  mentionUserId?: string;
  buttons?: { actionId: string; label: string; style?: 'primary' | 'danger' }[];
  /** An `edit` row: the platform id of the message whose text (and buttons: absent = removed) it replaces. */
  editOf?: string;
  /** An `ephemeral` row: the one person who sees it. */
  visibleTo?: string;
  /** An `ephemeral` row only its person may ever read (a sign-in link): a DM where notices are not private, never a post. */
  secret?: boolean;
}

/** One thread of talk: `platform:workspace:channel:thread` (thread `-` when none). */
export const conversations = sqliteTable(
  'conversations',
  {
    id: text('id').primaryKey(),
    platform: text('platform').notNull(),
    workspace: text('workspace').notNull(),
    channel: text('channel').notNull(),
    thread: text('thread'),
    /** IANA timezone of the last person who spoke here, when the platform tells it. */
    timezone: text('timezone'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('conversations_channel_idx').on(t.platform, t.workspace, t.channel)],
);

/** One execution of the agent loop for one goal. */
export const runs = sqliteTable(
  'runs',
  {
    id: text('id').primaryKey(),
    conversationId: text('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    taskId: integer('task_id').references(() => tasks.id, { onDelete: 'set null' }),
    status: text('status', { enum: RUN_STATUSES }).notNull(),
    steps: integer('steps').notNull().default(0),
    question: text('question', { mode: 'json' }).$type<PendingQuestion>(),
    askExpiresAt: integer('ask_expires_at'),
    summary: text('summary'),
    error: text('error'),
    /** Model tokens (prompt + completion) this run has used, from the endpoint's reported usage. */
    tokens: integer('tokens').notNull().default(0),
    /**
     * The person the run acts for (platform user id; the platform is the conversation's): who decides its
     * approvals, pays for it, may stop it. Copied from its task at the claim; null only for runs older than it.
     */
    principal: text('principal'),
    /** The principal's Discord role ids as of the request, so role admins stay admins in the run. */
    principalRoles: text('principal_roles', { mode: 'json' }).$type<string[]>(),
    startedAt: integer('started_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    endedAt: integer('ended_at'),
  },
  (t) => [
    uniqueIndex('runs_one_active_per_conversation')
      .on(t.conversationId)
      .where(sql`status in ('running', 'waiting_user')`),
    index('runs_ask_expiry_idx')
      .on(t.askExpiresAt)
      .where(sql`status = 'waiting_user'`),
    index('runs_conversation_idx').on(t.conversationId, t.startedAt),
    /** Newest runs first, for the web console's run list. */
    index('runs_started_idx').on(t.startedAt),
  ],
);

/** The per-conversation to-do list; every run works on exactly one task. */
export const tasks = sqliteTable(
  'tasks',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    conversationId: text('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    description: text('description').notNull(),
    status: text('status', { enum: TASK_STATUSES }).notNull().default('pending'),
    sequence: integer('sequence').notNull(),
    blockedBy: text('blocked_by', { mode: 'json' })
      .$type<number[]>()
      .notNull()
      .default(sql`'[]'`),
    /** 1 while any task in blockedBy is not completed; kept in step so readiness is an index lookup. */
    blocked: integer('blocked', { mode: 'boolean' }).notNull().default(false),
    resultSummary: text('result_summary'),
    failReason: text('fail_reason'),
    attempts: integer('attempts').notNull().default(0),
    /** Earliest start (retry backoff); 0 = now. */
    notBefore: integer('not_before').notNull().default(0),
    createdBy: text('created_by', { enum: ['user', 'agent', 'schedule'] }).notNull(),
    /**
     * The task's principal (platform user id): who asked, the schedule's creator for a scheduled prompt, the
     * principal of the run that added it for the agent's to-dos. Null only for tasks older than that rule.
     */
    requestedBy: text('requested_by'),
    /** The principal's Discord role ids as of the request (access rules may make a role admin). */
    requesterRoles: text('requester_roles', { mode: 'json' }).$type<string[]>(),
    /** The task descends from a scheduled prompt (fired by one, or added by a run that was): it may not create schedules. */
    fromSchedule: integer('from_schedule', { mode: 'boolean' }).notNull().default(false),
    /** Platform message that created it, when it came from a message. */
    sourceMessageId: text('source_message_id'),
    scheduleId: integer('schedule_id'),
    /** Images attached to the request, carried into the goal message when the task's run starts. */
    images: text('images', { mode: 'json' }).$type<ImagePart[]>(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    startedAt: integer('started_at'),
    finishedAt: integer('finished_at'),
  },
  (t) => [
    index('tasks_ready_idx')
      .on(t.notBefore, t.conversationId)
      .where(sql`status = 'pending' and blocked = 0`),
    index('tasks_conversation_idx').on(t.conversationId, t.sequence),
    /** Open work by conversation key: channel-wide /tasks and /stop read a key range of it. */
    index('tasks_open_idx')
      .on(t.conversationId)
      .where(sql`status in ('pending', 'in_progress')`),
  ],
);

/** The transcript: every user message, model step and tool result, in order. */
export const messages = sqliteTable(
  'messages',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    conversationId: text('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    runId: text('run_id'),
    role: text('role').$type<MessageRole>().notNull(),
    content: text('content'),
    toolCalls: text('tool_calls', { mode: 'json' }).$type<StoredToolCall[]>(),
    toolCallId: text('tool_call_id'),
    /** Who wrote a user message (platform user id). */
    authorId: text('author_id'),
    platformMessageId: text('platform_message_id'),
    /** Images sent with a user message (OpenAI image parts as data URLs); null for text only. */
    images: text('images', { mode: 'json' }).$type<ImagePart[]>(),
    createdAt: integer('created_at').notNull(),
    /** Whom (platform user id) the row is private to, others' runs see a placeholder (DESIGN.md "Private stays private…"); null: public. */
    privateTo: text('private_to'),
  },
  (t) => [
    index('messages_conversation_idx').on(t.conversationId, t.id),
    index('messages_private_idx')
      .on(t.conversationId, t.privateTo, t.id)
      .where(sql`private_to is not null`),
  ],
);

/**
 * The durable outbox: every message Errand posts into a conversation is recorded here first, in the
 * same transaction as the step that produced it, and delivered by the poster in id order. A row is
 * one platform message, so a restart resumes a long answer with the missing pieces only.
 */
export const outbox = sqliteTable(
  'outbox',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    conversationId: text('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    runId: text('run_id'),
    purpose: text('purpose', { enum: OUTBOX_PURPOSES }).notNull(),
    payload: text('payload', { mode: 'json' }).$type<OutboxPayload>().notNull(),
    status: text('status', { enum: OUTBOX_STATUSES }).notNull().default('pending'),
    platformMessageId: text('platform_message_id'),
    /** Posts tried so far; above 0 the platform may already hold the message (look before posting again). */
    attempts: integer('attempts').notNull().default(0),
    /** Earliest next try after a transient failure; 0 = now. */
    notBefore: integer('not_before').notNull().default(0),
    error: text('error'),
    createdAt: integer('created_at').notNull(),
    postedAt: integer('posted_at'),
  },
  (t) => [
    index('outbox_pending_idx')
      .on(t.conversationId, t.id)
      .where(sql`status = 'pending'`),
    // Few rows at any time: one per message of the previews being written right now.
    index('outbox_preview_idx')
      .on(t.runId)
      .where(sql`status = 'preview'`),
  ],
);

/** Inbound events already handled, so a redelivery (even after a restart) is ignored. */
export const processedEvents = sqliteTable(
  'processed_events',
  {
    key: text('key').primaryKey(),
    receivedAt: integer('received_at').notNull(),
  },
  (t) => [index('processed_events_received_idx').on(t.receivedAt)],
);

/** Tools a person allowed for a whole conversation ("Always allow here"). */
// Superseded by `tool_consents` (privacy-schema.ts), which names whose consent each is; no longer read or written.
export const toolGrants = sqliteTable(
  'tool_grants',
  {
    conversationId: text('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    tool: text('tool').notNull(),
    grantedBy: text('granted_by'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.tool] })],
);

export type ConversationRow = typeof conversations.$inferSelect;
export type RunRow = typeof runs.$inferSelect;
export type TaskRow = typeof tasks.$inferSelect;
export type MessageRow = typeof messages.$inferSelect;
export type OutboxRow = typeof outbox.$inferSelect;

// Scheduled prompts, in their own file.
export * from './schedule-schema.js';
// The per-person OAuth sign-ins to MCP servers, in their own file.
export * from './oauth-schema.js';
export * from './memory-schema.js';
export * from './elicitation-schema.js';

// Usage per model, run costs and run traces (DESIGN.md "Traces and cost"), in their own file.
export * from './cost-schema.js';

// Skills enabled by admins, pinned to their folders' hashes (DESIGN.md "Skills"), in their own file.
export * from './skills-schema.js';
// The web console's sign-in links and sessions, and the audit log (DESIGN.md "The web console"), in their own file.
export * from './console-schema.js';
// Conversations' sandbox workspaces (DESIGN.md "Running code in a sandbox"), in their own file.
export * from './workspace-schema.js';
// What is private to one person in a shared conversation, in its own file.
export * from './privacy-schema.js';
// What keeps one person's rights theirs in a shared thread (per-person consents, schedules' launches, deployment keys), in its own file.
export * from './rights-schema.js';
export * from './outbox-files-schema.js';
