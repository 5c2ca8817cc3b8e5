import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const SCHEDULE_STATUSES = ['active', 'paused', 'completed', 'error'] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

/** Prompts that run later or repeatedly. */
export const schedules = sqliteTable(
  'schedules',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    platform: text('platform').notNull(),
    workspace: text('workspace').notNull(),
    channel: text('channel').notNull(),
    /** `channel`: post top-level and open a thread; `thread`: queue a task in conversationId. */
    target: text('target', { enum: ['channel', 'thread'] }).notNull(),
    conversationId: text('conversation_id'),
    prompt: text('prompt').notNull(),
    kind: text('kind', { enum: ['once', 'cron', 'interval'] }).notNull(),
    spec: text('spec').notNull(),
    timezone: text('timezone').notNull(),
    status: text('status', { enum: SCHEDULE_STATUSES }).notNull(),
    /** Interval anchor: fires at anchorAt + k·interval, so it never drifts. */
    anchorAt: integer('anchor_at').notNull(),
    nextRunAt: integer('next_run_at'),
    lastRunAt: integer('last_run_at'),
    runCount: integer('run_count').notNull().default(0),
    /** The person it acts for when it fires (its runs' principal): platform user id. */
    createdBy: text('created_by').notNull(),
    /** The creator's Discord role ids when they made it, for the record only: each fire reads their roles as they are then. */
    creatorRoles: text('creator_roles', { mode: 'json' }).$type<string[]>(),
    failReason: text('fail_reason'),
    /** Runs in a row that could not start or post (the target is gone); reset by a run that completes. */
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('schedules_due_idx').on(t.status, t.nextRunAt),
    index('schedules_channel_idx').on(t.platform, t.workspace, t.channel, t.status),
  ],
);

export type ScheduleRow = typeof schedules.$inferSelect;
