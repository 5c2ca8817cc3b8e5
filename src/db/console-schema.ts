import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The audit log (DESIGN.md "The web console"): every tool call, approval and change, append-only. `entry` is the
 * entry itself as canonical JSON (RFC 8785), and `hash` is sha256(`prev_hash` + `entry`), `prev_hash` being the
 * hash of the row before it (64 zeros for the first): an edited, removed or inserted row breaks the chain at that
 * row. The other columns repeat parts of the entry for reading by index; the check compares them with it too.
 */
export const auditLog = sqliteTable(
  'audit_log',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    at: integer('at').notNull(),
    kind: text('kind').notNull(),
    /** `platform:user` of who did it (an approval's decider, a console user); null for the model's own calls. */
    actor: text('actor'),
    runId: text('run_id'),
    entry: text('entry').notNull(),
    prevHash: text('prev_hash').notNull(),
    hash: text('hash').notNull(),
  },
  (t) => [index('audit_log_run_idx').on(t.runId)],
);

/**
 * A sign-in link to the web console (`/admin`): only the sha256 of its token is stored, so the table alone opens
 * nothing. Single use (`used_at`), valid until `expires_at` (10 minutes).
 */
export const adminLinks = sqliteTable(
  'admin_links',
  {
    tokenHash: text('token_hash').primaryKey(),
    /** `platform:user` of the admin who asked for it. */
    person: text('person').notNull(),
    /** Their Discord role ids when they asked (an admin may be one by role). */
    roles: text('roles', { mode: 'json' }).$type<string[]>(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('admin_links_expires_idx').on(t.expiresAt)],
);

/** A signed-in web console session, by the sha256 of its cookie's token, bound to one person until `expires_at` (12 h). */
export const adminSessions = sqliteTable(
  'admin_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    person: text('person').notNull(),
    roles: text('roles', { mode: 'json' }).$type<string[]>(),
    expiresAt: integer('expires_at').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('admin_sessions_expires_idx').on(t.expiresAt)],
);

export type AuditRow = typeof auditLog.$inferSelect;
export type AdminLinkRow = typeof adminLinks.$inferSelect;
export type AdminSessionRow = typeof adminSessions.$inferSelect;
