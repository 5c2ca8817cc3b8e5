import type { ChannelRef } from '../chat/conversation-ref.js';
import type { SkillsSettings } from '../settings/skills-settings.js';
import type { ChannelSettings } from '../settings/team-settings.js';
import type { SkillPinRow } from './skill-pin-store.js';
import type { LoadedSkill, SkillScan } from './skill-scan.js';

/**
 * Where a pin comes from. The configuration file's pins win for every skill the file names (top level or in any
 * channel): such a skill is managed by the file alone, and a database pin (`/skills enable`) is only ever used for
 * skills the file does not name. In a channel, its own `channels.<id>.skills` pin wins over the top-level one.
 */
export type PinSource =
  | { readonly kind: 'file' }
  | { readonly kind: 'file-channel'; readonly channel: string }
  | { readonly kind: 'database'; readonly by: string; readonly at: number };

/** One pin that applies to a skill somewhere. */
export interface AppliedPin {
  readonly name: string;
  readonly pin: string;
  readonly source: PinSource;
}

/** The configuration file's pins: everywhere (`skills`), and per channel (`channels.<platform:channel>.skills`). */
export interface FilePins {
  readonly everywhere: SkillsSettings;
  readonly byChannel: ReadonlyMap<string, SkillsSettings>;
  /** Every name the file pins anywhere: those the database never decides. */
  readonly names: ReadonlySet<string>;
}

/** The file's pins from its `skills` and `channels` keys. */
export function filePinsOf(skills: SkillsSettings, channels: ChannelSettings): FilePins {
  const byChannel = new Map<string, SkillsSettings>();
  for (const [key, settings] of Object.entries(channels))
    if (settings.skills && Object.keys(settings.skills).length > 0) byChannel.set(key, settings.skills);
  const names = new Set([...Object.keys(skills), ...[...byChannel.values()].flatMap((s) => Object.keys(s))]);
  return { everywhere: skills, byChannel, names };
}

/** How the configuration file names a channel (`slack:C…`, `discord:<id>`): a thread counts as its channel. */
export const channelKeyOf = (ref: Pick<ChannelRef, 'platform' | 'channel'>) => `${ref.platform}:${ref.channel}`;

/** The pins that decide each skill in one channel: the channel's own file pins, then the file's top level, then the database's. */
export function pinsIn(channelKey: string, file: FilePins, database: readonly SkillPinRow[]): AppliedPin[] {
  const own = file.byChannel.get(channelKey) ?? {};
  const applied: AppliedPin[] = Object.entries(own).map(([name, pin]) => ({
    name,
    pin,
    source: { kind: 'file-channel', channel: channelKey },
  }));
  for (const [name, pin] of Object.entries(file.everywhere))
    if (!(name in own)) applied.push({ name, pin, source: { kind: 'file' } });
  for (const row of database)
    if (!file.names.has(row.name))
      applied.push({
        name: row.name,
        pin: row.pin,
        source: { kind: 'database', by: row.enabledBy, at: row.enabledAt },
      });
  return applied;
}

/** An enabled skill of a run, with the pin that enabled it. */
export interface EnabledSkill {
  readonly skill: LoadedSkill;
  readonly source: PinSource;
}

/**
 * The skills enabled in one channel: each pinned there whose folder, as read, has exactly its pin. A changed,
 * missing or malformed one is left out. The channel's own skills come first, then the rest, each by name.
 */
export function enabledIn(
  channelKey: string,
  scan: SkillScan,
  file: FilePins,
  database: readonly SkillPinRow[],
): EnabledSkill[] {
  const enabled: EnabledSkill[] = [];
  for (const applied of pinsIn(channelKey, file, database)) {
    const skill = scan.skills.get(applied.name);
    if (skill && skill.digest.pin === applied.pin) enabled.push({ skill, source: applied.source });
  }
  const rank = (e: EnabledSkill) => (e.source.kind === 'file-channel' ? 0 : 1);
  return enabled.sort((a, b) => rank(a) - rank(b) || (a.skill.name < b.skill.name ? -1 : 1));
}

/** What one pin comes to against the folders as read. */
export type PinState = 'enabled' | 'changed' | 'missing' | 'malformed';

/** A skill as `/skills` shows it to admins: found or not, and each pin that applies to it and what it comes to. */
export interface SkillStatus {
  readonly name: string;
  readonly skill: LoadedSkill | null;
  /** The malformed folder of that name, when there is one and no valid skill. */
  readonly malformedReason: string | null;
  readonly pins: readonly { readonly applied: AppliedPin; readonly state: PinState }[];
}

/** Every skill found and every skill pinned anywhere, by name, each with its pins' states (for `/skills` and start-up). */
export function skillStatuses(scan: SkillScan, file: FilePins, database: readonly SkillPinRow[]): SkillStatus[] {
  const applied: AppliedPin[] = [];
  for (const [channel, pins] of file.byChannel)
    for (const [name, pin] of Object.entries(pins))
      applied.push({ name, pin, source: { kind: 'file-channel', channel } });
  for (const [name, pin] of Object.entries(file.everywhere)) applied.push({ name, pin, source: { kind: 'file' } });
  for (const row of database)
    if (!file.names.has(row.name))
      applied.push({
        name: row.name,
        pin: row.pin,
        source: { kind: 'database', by: row.enabledBy, at: row.enabledAt },
      });
  const malformedByName = new Map(scan.malformed.map((m) => [m.folder.split('/').at(-1)!, m.reason]));
  const names = [...new Set([...scan.skills.keys(), ...applied.map((a) => a.name)])].sort();
  return names.map((name) => {
    const skill = scan.skills.get(name) ?? null;
    const malformedReason = skill ? null : (malformedByName.get(name) ?? null);
    const state = (pin: string): PinState =>
      skill ? (skill.digest.pin === pin ? 'enabled' : 'changed') : malformedReason ? 'malformed' : 'missing';
    return {
      name,
      skill,
      malformedReason,
      pins: applied.filter((a) => a.name === name).map((a) => ({ applied: a, state: state(a.pin) })),
    };
  });
}
