import { sqliteTable, text, integer } from 'drizzle-orm/sqlite-core';

/**
 * A skill an admin enabled with `/skills enable <name>` (DESIGN.md "Skills"): pinned to the hash of its folder as it
 * was then, with who approved it and when. A folder whose content no longer has this hash is not loaded until an
 * admin enables it again (which records the new hash). Skills the configuration file pins are never stored here.
 */
export const skillPins = sqliteTable('skill_pins', {
  name: text('name').primaryKey(),
  /** `sha256:<64 hex>` of the folder (src/skills/skill-folder.ts). */
  pin: text('pin').notNull(),
  /** Who approved it: `platform:user id`. */
  enabledBy: text('enabled_by').notNull(),
  enabledAt: integer('enabled_at').notNull(),
});

export type SkillPinRow = typeof skillPins.$inferSelect;
