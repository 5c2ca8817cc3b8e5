import { bigint, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { epochMs } from './pg-columns.js';

/**
 * The audit log, chained by hash (see console-schema.ts). `entry` is text, not jsonb: the hash covers its exact
 * characters, which jsonb would normalise. Appends take an advisory lock, so the chain stays one line across processes.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    at: epochMs('at').notNull(),
    kind: text('kind').notNull(),
    actor: text('actor'),
    runId: text('run_id'),
    entry: text('entry').notNull(),
    prevHash: text('prev_hash').notNull(),
    hash: text('hash').notNull(),
  },
  (t) => [index('audit_log_run_idx').on(t.runId)],
);

/** A sign-in link to the web console, by the sha256 of its token; single use, 10 minutes. */
export const adminLinks = pgTable(
  'admin_links',
  {
    tokenHash: text('token_hash').primaryKey(),
    person: text('person').notNull(),
    roles: jsonb('roles').$type<string[]>(),
    expiresAt: epochMs('expires_at').notNull(),
    usedAt: epochMs('used_at'),
    createdAt: epochMs('created_at').notNull(),
  },
  (t) => [index('admin_links_expires_idx').on(t.expiresAt)],
);

/** A signed-in web console session, by the sha256 of its cookie's token; 12 hours. */
export const adminSessions = pgTable(
  'admin_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    person: text('person').notNull(),
    roles: jsonb('roles').$type<string[]>(),
    expiresAt: epochMs('expires_at').notNull(),
    createdAt: epochMs('created_at').notNull(),
  },
  (t) => [index('admin_sessions_expires_idx').on(t.expiresAt)],
);
