import { asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { skillPins, type SkillPinRow } from '../../db/schema.js';
import type { SkillPinStore } from '../../skills/skill-pin-store.js';
import type { Synchronous } from './synchronous.js';

/**
 * Skill pins on SQLite. One process holds the file, so the rows, once read outside any transaction, are kept until
 * the next write: every run asks for them, and answering from memory keeps that off the database. Inside a
 * transaction they are read from it (what it wrote may still be rolled back) and not kept.
 */
export function createSqliteSkillPinStore(db: Db): Synchronous<SkillPinStore> {
  let cached: SkillPinRow[] | null = null;
  const all = db.select().from(skillPins).orderBy(asc(skillPins.name)).prepare();
  return {
    list() {
      if (db.$client.inTransaction) return all.all();
      cached ??= all.all();
      return cached.map((r) => ({ ...r }));
    },
    save(pin) {
      db.insert(skillPins)
        .values(pin)
        .onConflictDoUpdate({
          target: skillPins.name,
          set: { pin: pin.pin, enabledBy: pin.enabledBy, enabledAt: pin.enabledAt },
        })
        .run();
      cached = null;
    },
    remove(name) {
      const removed = db.delete(skillPins).where(eq(skillPins.name, name)).run().changes === 1;
      cached = null;
      return removed;
    },
  };
}
