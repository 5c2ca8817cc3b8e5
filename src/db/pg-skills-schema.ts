import { pgTable, text } from 'drizzle-orm/pg-core';
import { epochMs } from './pg-columns.js';

/** A skill an admin enabled with `/skills enable`, pinned to its folder's hash, with who and when (see skills-schema.ts). */
export const skillPins = pgTable('skill_pins', {
  name: text('name').primaryKey(),
  pin: text('pin').notNull(),
  enabledBy: text('enabled_by').notNull(),
  enabledAt: epochMs('enabled_at').notNull(),
});
