import { asc, eq } from 'drizzle-orm';
import { skillPins } from '../../db/pg-schema.js';
import type { SkillPinStore } from '../../skills/skill-pin-store.js';
import type { PgExecutor } from './pg-executor.js';
import { prepared } from './pg-prepared.js';

const allPins = prepared((d) => d.select().from(skillPins).orderBy(asc(skillPins.name)));

/** Skill pins on PostgreSQL, read from the table every time: another process may have enabled or disabled one. */
export function createPgSkillPinStore(db: PgExecutor): SkillPinStore {
  return {
    async list() {
      return allPins(db);
    },
    async save(pin) {
      await db
        .insert(skillPins)
        .values(pin)
        .onConflictDoUpdate({
          target: skillPins.name,
          set: { pin: pin.pin, enabledBy: pin.enabledBy, enabledAt: pin.enabledAt },
        });
    },
    async remove(name) {
      const rows = await db.delete(skillPins).where(eq(skillPins.name, name)).returning({ name: skillPins.name });
      return rows.length === 1;
    },
  };
}
