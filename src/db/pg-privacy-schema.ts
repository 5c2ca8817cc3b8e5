import { bigint, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/** Keys this deployment generated for itself, one per purpose, shared by every process (see privacy-schema.ts). */
export const deploymentKeys = pgTable('deployment_keys', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
});

/** "Always allow here", per person (see privacy-schema.ts). */
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
