import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Keys this deployment generated for itself, one per purpose, shared by every process on the database: the first
 * process to need one stores it, the others read it. `principal-pseudonym`: the HMAC key of the `errand.principal`
 * span attribute when ERRAND_SECRET_KEY is not set (runtime/principal-pseudonym.ts).
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
    /** Whose runs it is for: the principal's platform user id ('' for a run acting for nobody, older than principals). */
    principal: text('principal').notNull(),
    /** Who clicked: the principal, or an admin deciding for them. */
    grantedBy: text('granted_by'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.tool, t.principal] })],
);
