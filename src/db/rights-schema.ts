import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Keys this deployment generated for itself, one per purpose, shared by every process on the database: the first
 * process to need one stores it, the others read it. `principal-pseudonym`: the HMAC key of the `errand.principal`
 * span attribute when ERRAND_SECRET_KEY is not set (telemetry/principal-pseudonym.ts).
 */
export const deploymentKeys = sqliteTable('deployment_keys', {
  name: text('name').primaryKey(),
  /** Random bytes, base64. */
  value: text('value').notNull(),
  createdAt: integer('created_at').notNull(),
});

/**
 * "Always allow here", per person: a tool one principal allowed for their own runs in one conversation. Consent is
 * a person's: another person's run there still asks its own principal (their call uses their own account). The
 * grants of `tool_grants`, which held for everyone in the conversation, are not carried over: people are asked again.
 */
export const toolConsents = sqliteTable(
  'tool_consents',
  {
    conversationId: text('conversation_id').notNull(),
    tool: text('tool').notNull(),
    /** Whose runs it is for: the principal's platform user id ('' for a run acting for nobody). */
    principal: text('principal').notNull(),
    /** Who clicked: the principal, or an admin deciding for them. */
    grantedBy: text('granted_by'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.tool, t.principal] })],
);

/** How a schedule's fire ended up: `pending` until its run is queued (`started`) or it is given up. */
export const LAUNCH_STATUSES = ['pending', 'started', 'refused', 'dropped', 'failed'] as const;
export type LaunchStatus = (typeof LAUNCH_STATUSES)[number];

/**
 * A fire of a schedule whose run is still to be queued (DESIGN.md "Scheduled prompts"): written in the same
 * transaction that records the fire, with what fired (the prompt and where it goes, as they were then), so the
 * prompt outlives a stop or a crash between the fire and its run. A channel target's top-level post is recorded
 * in the outbox first (`note_outbox_id`), then the thread is opened on it and the task queued, and the launch
 * marked `started` in the task's own transaction. `pending` rows are finished by whichever process claims them
 * (`not_before`: claimed or backing off until then). `refused`: the creator's rights were gone at fire time;
 * `dropped`: the schedule was deleted first; `failed`: the target is gone, or it could not start for too long.
 */
export const scheduleLaunches = sqliteTable(
  'schedule_launches',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    scheduleId: integer('schedule_id').notNull(),
    /** When it fired (its due time as recorded). */
    firedAt: integer('fired_at').notNull(),
    status: text('status', { enum: LAUNCH_STATUSES }).notNull().default('pending'),
    prompt: text('prompt').notNull(),
    target: text('target', { enum: ['channel', 'thread'] }).notNull(),
    platform: text('platform').notNull(),
    workspace: text('workspace').notNull(),
    channel: text('channel').notNull(),
    /** A thread target's conversation. */
    conversationId: text('conversation_id'),
    /** A channel target: the last outbox row of its top-level post, once recorded. */
    noteOutboxId: integer('note_outbox_id'),
    attempts: integer('attempts').notNull().default(0),
    /** Not to be tried before then (ms): a claim under way or a backoff; 0 = now. */
    notBefore: integer('not_before').notNull().default(0),
    /** Why the last attempt did not start the run. */
    error: text('error'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('schedule_launches_pending_idx')
      .on(t.notBefore)
      .where(sql`status = 'pending'`),
  ],
);

export type ScheduleLaunchRow = typeof scheduleLaunches.$inferSelect;
