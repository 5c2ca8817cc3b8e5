import type { SkillPinRow } from '../db/schema.js';

export type { SkillPinRow };

/**
 * The skills admins enabled with `/skills enable` (DESIGN.md "Skills"), each pinned to its folder's hash, with who
 * approved it and when. Shared by every process on PostgreSQL: a disable on one holds on all at their next run.
 */
export interface SkillPinStore {
  /** Every pin, by name. Read at each run's start (one small table), so it is the source every process agrees on. */
  list(): Promise<SkillPinRow[]>;
  /** Records (or replaces) the pin of a skill. */
  save(pin: SkillPinRow): Promise<void>;
  /** Removes a skill's pin; false when it had none. */
  remove(name: string): Promise<boolean>;
}
