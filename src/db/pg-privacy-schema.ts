import { bigint, pgTable, text } from 'drizzle-orm/pg-core';

/** Keys this deployment generated for itself, one per purpose, shared by every process (see privacy-schema.ts). */
export const deploymentKeys = pgTable('deployment_keys', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
});
