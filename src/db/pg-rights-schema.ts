import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { LAUNCH_STATUSES } from './rights-schema.js';

/** Keys this deployment generated for itself, one per purpose, shared by every process (see rights-schema.ts). */
export const deploymentKeys = pgTable('deployment_keys', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
});

/** "Always allow here", per person (see rights-schema.ts). */
export const toolConsents = pgTable(
  'tool_consents',
  {
    conversationId: text('conversation_id').notNull(),
    tool: text('tool').notNull(),
    principal: text('principal').notNull(),
    grantedBy: text('granted_by'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.tool, t.principal] })],
);

/** A fire of a schedule whose run is still to be queued (see rights-schema.ts). */
export const scheduleLaunches = pgTable(
  'schedule_launches',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    scheduleId: integer('schedule_id').notNull(),
    firedAt: bigint('fired_at', { mode: 'number' }).notNull(),
    status: text('status', { enum: LAUNCH_STATUSES }).notNull().default('pending'),
    prompt: text('prompt').notNull(),
    target: text('target', { enum: ['channel', 'thread'] }).notNull(),
    platform: text('platform').notNull(),
    workspace: text('workspace').notNull(),
    channel: text('channel').notNull(),
    conversationId: text('conversation_id'),
    noteOutboxId: bigint('note_outbox_id', { mode: 'number' }),
    attempts: integer('attempts').notNull().default(0),
    notBefore: bigint('not_before', { mode: 'number' }).notNull().default(0),
    error: text('error'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
  },
  (t) => [
    index('schedule_launches_pending_idx')
      .on(t.notBefore)
      .where(sql`status = 'pending'`),
  ],
);
