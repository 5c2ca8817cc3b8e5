import { index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { SCHEDULE_STATUSES } from './schedule-schema.js';
import { conversationKey, epochMs } from './pg-columns.js';

/** Prompts that run later or repeatedly; a fire is claimed with `update … where next_run_at = $old`. */
export const schedules = pgTable(
  'schedules',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    platform: text('platform').notNull(),
    workspace: text('workspace').notNull(),
    channel: text('channel').notNull(),
    /** `channel`: post top-level and open a thread; `thread`: queue a task in conversationId. */
    target: text('target', { enum: ['channel', 'thread'] }).notNull(),
    conversationId: conversationKey('conversation_id'),
    prompt: text('prompt').notNull(),
    kind: text('kind', { enum: ['once', 'cron', 'interval'] }).notNull(),
    spec: text('spec').notNull(),
    timezone: text('timezone').notNull(),
    status: text('status', { enum: SCHEDULE_STATUSES }).notNull(),
    /** Interval anchor: fires at anchorAt + k·interval, so it never drifts. */
    anchorAt: epochMs('anchor_at').notNull(),
    nextRunAt: epochMs('next_run_at'),
    lastRunAt: epochMs('last_run_at'),
    runCount: integer('run_count').notNull().default(0),
    createdBy: text('created_by').notNull(),
    creatorRoles: jsonb('creator_roles').$type<string[]>(),
    failReason: text('fail_reason'),
    /** Runs in a row that could not start or post (the target is gone); reset by a run that completes. */
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    createdAt: epochMs('created_at').notNull(),
    updatedAt: epochMs('updated_at').notNull(),
  },
  (t) => [
    index('schedules_due_idx').on(t.status, t.nextRunAt),
    index('schedules_channel_idx').on(t.platform, t.workspace, t.channel, t.status),
  ],
);
