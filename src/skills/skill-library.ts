import type { ChannelRef } from '../chat/conversation-ref.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import {
  channelKeyOf,
  enabledIn,
  skillStatuses,
  type EnabledSkill,
  type FilePins,
  type SkillStatus,
} from './skill-enablement.js';
import type { SkillPinRow, SkillPinStore } from './skill-pin-store.js';
import type { LoadedSkill, SkillScan } from './skill-scan.js';

/** How often, at most, a run that finds a pin its loaded folder does not match reads SKILLS_DIR again. */
export const STALE_RESCAN_MS = 30_000;

/** What `/skills enable` did. */
export type EnableOutcome =
  | { readonly ok: true; readonly skill: LoadedSkill; readonly already: boolean }
  | { readonly ok: false; readonly reason: 'not_found'; readonly name: string; readonly dir: string }
  | { readonly ok: false; readonly reason: 'malformed'; readonly name: string; readonly why: string }
  | {
      readonly ok: false;
      readonly reason: 'file_pinned';
      readonly name: string;
      readonly pinned: readonly string[];
      readonly now: string | null;
    };

/** What `/skills disable` did. */
export type DisableOutcome =
  { readonly ok: true } | { readonly ok: false; readonly reason: 'not_enabled' | 'file_pinned' };

/** `/skills` for admins: SKILLS_DIR as read now, every skill's pins and states, and the malformed folders. */
export interface SkillsReport {
  readonly scan: SkillScan;
  readonly statuses: readonly SkillStatus[];
}

/**
 * Errand's skills: SKILLS_DIR as last read (at start-up, and again whenever an admin asks with `/skills`), the
 * configuration file's pins and the database's. A run asks `enabledFor` (one read of the pins, no file read); the
 * admin paths read the folders again so they see what is on disk now.
 */
export interface SkillLibrary {
  /** SKILLS_DIR as last read. */
  current(): SkillScan;
  /** Reads SKILLS_DIR again (one reading at a time: callers during one share it). */
  reload(): Promise<SkillScan>;
  /** The skills enabled in a channel now: pinned there, folder unchanged. `pins`: the database's, read already. */
  enabledFor(channel: Pick<ChannelRef, 'platform' | 'channel'>, pins?: readonly SkillPinRow[]): Promise<EnabledSkill[]>;
  /** Reads SKILLS_DIR again and says what each skill comes to. */
  report(): Promise<SkillsReport>;
  /** What each skill comes to against SKILLS_DIR as last read (no file is read: for the App Home). */
  overview(): Promise<SkillsReport>;
  /** Pins a skill to its folder as it is now, everywhere, recording who approved it. */
  enable(name: string, by: string): Promise<EnableOutcome>;
  /** Removes a skill's database pin. */
  disable(name: string): Promise<DisableOutcome>;
}

export interface SkillLibraryDeps {
  readonly scan: () => Promise<SkillScan>;
  readonly pins: SkillPinStore;
  readonly file: FilePins;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** The library over its first reading (`initial`, read at start-up). */
export function createSkillLibrary(initial: SkillScan, deps: SkillLibraryDeps): SkillLibrary {
  let scan = initial;
  let reading: Promise<SkillScan> | null = null;
  let lastStaleRescan = Number.NEGATIVE_INFINITY;
  /** The pins that did not match when SKILLS_DIR was last read again for that reason: the same ones do not ask twice. */
  let lastStale = '';
  const reload = () => {
    reading ??= deps
      .scan()
      .then((fresh) => {
        scan = fresh;
        return fresh;
      })
      .finally(() => {
        reading = null;
      });
    return reading;
  };
  /**
   * A pin naming content this process has not read (another process approved a changed folder or a new skill, or
   * the folder changed here): read SKILLS_DIR again, at most every STALE_RESCAN_MS, and only for pins not already
   * found unmatched by the last such reading (a folder changed and not approved stays held back without rereads).
   */
  const noticeStale = (pins: readonly { name: string; pin: string }[]) => {
    const stale = pins
      .filter((p) => !deps.file.names.has(p.name) && scan.skills.get(p.name)?.digest.pin !== p.pin)
      .map((p) => `${p.name}:${p.pin}`)
      .join(' ');
    const now = deps.clock.now();
    if (stale === '' || stale === lastStale || now - lastStaleRescan < STALE_RESCAN_MS) return;
    lastStaleRescan = now;
    lastStale = stale;
    void reload().catch((err: unknown) => deps.logger.warn({ err }, 'reading SKILLS_DIR again failed'));
  };
  const filePinsOf = (name: string) =>
    [...Object.entries(deps.file.everywhere), ...[...deps.file.byChannel.values()].flatMap((s) => Object.entries(s))]
      .filter(([n]) => n === name)
      .map(([, pin]) => pin);

  return {
    current: () => scan,
    reload,
    async enabledFor(channel, pins) {
      const database = pins ?? (await deps.pins.list());
      noticeStale(database);
      return enabledIn(channelKeyOf(channel), scan, deps.file, database);
    },
    async report() {
      const fresh = await reload();
      return { scan: fresh, statuses: skillStatuses(fresh, deps.file, await deps.pins.list()) };
    },
    async overview() {
      return { scan, statuses: skillStatuses(scan, deps.file, await deps.pins.list()) };
    },
    async enable(name, by) {
      const fresh = await reload();
      const skill = fresh.skills.get(name);
      if (deps.file.names.has(name))
        return {
          ok: false,
          reason: 'file_pinned',
          name,
          pinned: [...new Set(filePinsOf(name))],
          now: skill?.digest.pin ?? null,
        };
      if (!skill) {
        const malformed = fresh.malformed.find((m) => m.folder.split('/').at(-1) === name);
        return malformed
          ? { ok: false, reason: 'malformed', name, why: malformed.reason }
          : { ok: false, reason: 'not_found', name, dir: fresh.dir };
      }
      const existing = (await deps.pins.list()).find((p) => p.name === name);
      if (existing?.pin === skill.digest.pin) return { ok: true, skill, already: true };
      await deps.pins.save({ name, pin: skill.digest.pin, enabledBy: by, enabledAt: deps.clock.now() });
      deps.logger.info({ skill: name, pin: skill.digest.pin, by, previous: existing?.pin ?? null }, 'skill enabled');
      return { ok: true, skill, already: false };
    },
    async disable(name) {
      if (deps.file.names.has(name)) return { ok: false, reason: 'file_pinned' };
      const removed = await deps.pins.remove(name);
      if (removed) deps.logger.info({ skill: name }, 'skill disabled');
      return removed ? { ok: true } : { ok: false, reason: 'not_enabled' };
    },
  };
}

/**
 * What start-up says about skills: each malformed folder with its reason, each pinned skill whose folder changed
 * (not loaded until an admin approves it again) or is missing, and how many are enabled.
 */
export function logSkillsAtStart(report: SkillsReport, logger: Logger): void {
  const { scan, statuses } = report;
  if (!scan.found) {
    if (statuses.some((s) => s.pins.length > 0))
      logger.warn({ dir: scan.dir }, 'SKILLS_DIR does not exist, but skills are pinned: none of them is loaded');
    return;
  }
  for (const m of scan.malformed)
    logger.warn({ folder: m.folder, reason: m.reason }, `skill skipped: ${m.folder}: ${m.reason}`);
  for (const s of statuses) {
    for (const { applied, state } of s.pins) {
      const where =
        applied.source.kind === 'database'
          ? 'enabled with /skills enable'
          : applied.source.kind === 'file'
            ? 'pinned in the configuration file'
            : `pinned in the configuration file for ${applied.source.channel}`;
      if (state === 'changed')
        logger.warn(
          { skill: s.name, pinned: applied.pin, now: s.skill?.digest.pin },
          `skill ${s.name} changed since it was approved (${where}): not loaded until an admin approves it again`,
        );
      if (state === 'missing')
        logger.warn({ skill: s.name, dir: scan.dir }, `skill ${s.name} is ${where} but not found in SKILLS_DIR`);
    }
  }
  const enabled = statuses.filter((s) => s.pins.some((p) => p.state === 'enabled')).map((s) => s.name);
  logger.info({ dir: scan.dir, found: scan.skills.size, enabled }, 'skills read');
}
