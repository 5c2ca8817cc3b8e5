import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

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
