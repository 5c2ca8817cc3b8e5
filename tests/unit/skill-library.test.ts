import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { filePinsOf } from '../../src/skills/skill-enablement.js';
import { createSkillLibrary, STALE_RESCAN_MS } from '../../src/skills/skill-library.js';
import type { SkillPinRow, SkillPinStore } from '../../src/skills/skill-pin-store.js';
import type { LoadedSkill, SkillScan } from '../../src/skills/skill-scan.js';
import { FakeClock } from '../fakes/fake-clock.js';

const pin = (n: number) => `sha256:${String(n).padStart(64, '0')}`;
const skill = (name: string, p: string): LoadedSkill => ({
  name,
  dir: `/srv/skills/${name}`,
  folder: name,
  manifest: { name, description: `Do ${name}.`, license: null, compatibility: null, allowedTools: null, metadata: {} },
  body: '',
  digest: { pin: p, entries: [], totalBytes: 0 },
});
const scanOf = (...skills: LoadedSkill[]): SkillScan => ({
  dir: './skills',
  found: true,
  skills: new Map(skills.map((s) => [s.name, s])),
  malformed: [],
});
const C1 = { platform: 'slack', channel: 'C1' };

/** Pins in memory, as another process's /skills enable leaves them in the shared database. */
function memoryPins(rows: SkillPinRow[]): SkillPinStore {
  return {
    list: async () => rows.map((r) => ({ ...r })),
    save: async (row) => void rows.splice(0, rows.length, ...rows.filter((r) => r.name !== row.name), row),
    remove: async (name) => rows.length !== rows.splice(0, rows.length, ...rows.filter((r) => r.name !== name)).length,
  };
}

describe('the skill library on a process that shares its pins with others', () => {
  it('reads SKILLS_DIR again when a pin names content it has not read, and picks the skill up', async () => {
    const clock = new FakeClock();
    let onDisk = scanOf();
    let reads = 0;
    const pins: SkillPinRow[] = [];
    const library = createSkillLibrary(onDisk, {
      scan: async () => (reads++, onDisk),
      pins: memoryPins(pins),
      file: filePinsOf({}, {}),
      clock,
      logger: silentLogger(),
    });
    expect(await library.enabledFor(C1)).toEqual([]);
    expect(reads).toBe(0);

    // Another process found a new folder and enabled it.
    onDisk = scanOf(skill('triage', pin(1)));
    pins.push({ name: 'triage', pin: pin(1), enabledBy: 'slack:UADMIN', enabledAt: 0 });
    expect(await library.enabledFor(C1)).toEqual([]);
    await Promise.resolve();
    expect(reads).toBe(1);
    expect((await library.enabledFor(C1)).map((e) => e.skill.name)).toEqual(['triage']);
  });

  it('does not read again for a folder that changed and was not approved, however many runs ask', async () => {
    const clock = new FakeClock();
    let reads = 0;
    const changed = scanOf(skill('triage', pin(2)));
    const library = createSkillLibrary(changed, {
      scan: async () => (reads++, changed),
      pins: memoryPins([{ name: 'triage', pin: pin(1), enabledBy: 'slack:UADMIN', enabledAt: 0 }]),
      file: filePinsOf({}, {}),
      clock,
      logger: silentLogger(),
    });
    for (let i = 0; i < 5; i++) {
      expect(await library.enabledFor(C1)).toEqual([]);
      clock.advance(STALE_RESCAN_MS);
    }
    expect(reads).toBe(1);
  });
});
