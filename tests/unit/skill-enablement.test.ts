import { describe, expect, it } from 'vitest';
import { createRunSkills, followedInTranscript } from '../../src/agent/run-skills.js';
import { skillsSection } from '../../src/agent/skills-prompt.js';
import type { SkillPinRow } from '../../src/skills/skill-pin-store.js';
import { enabledIn, filePinsOf, skillStatuses, type EnabledSkill } from '../../src/skills/skill-enablement.js';
import { createSkillMounts } from '../../src/skills/skill-mounts.js';
import type { LoadedSkill, SkillScan } from '../../src/skills/skill-scan.js';

const pin = (n: number) => `sha256:${String(n).padStart(64, '0')}`;
function skill(name: string, p: string, extra: { description?: string; allowedTools?: string[] } = {}): LoadedSkill {
  return {
    name,
    dir: `/srv/skills/${name}`,
    folder: name,
    manifest: {
      name,
      description: extra.description ?? `Do ${name}.`,
      license: null,
      compatibility: null,
      allowedTools: extra.allowedTools ?? null,
      metadata: {},
    },
    body: `# ${name}`,
    digest: { pin: p, entries: [], totalBytes: 0 },
  };
}
const scanOf = (...skills: LoadedSkill[]): SkillScan => ({
  dir: './skills',
  found: true,
  skills: new Map(skills.map((s) => [s.name, s])),
  malformed: [],
});
const dbPin = (name: string, p: string): SkillPinRow => ({ name, pin: p, enabledBy: 'slack:UADMIN', enabledAt: 0 });

describe('which skills are enabled where', () => {
  const scan = scanOf(skill('alpha', pin(1)), skill('beta', pin(2)), skill('gamma', pin(3)), skill('delta', pin(4)));

  it("the file's channel pin wins over its top-level pin there; the file decides every skill it names, the database the others", () => {
    const file = filePinsOf(
      { alpha: pin(1), beta: pin(99) },
      { 'slack:C1': { skills: { beta: pin(2), gamma: pin(3) } } },
    );
    // The database pins beta (named by the file: ignored) and delta (not named: used).
    const database = [dbPin('beta', pin(2)), dbPin('delta', pin(4))];
    const names = (channel: string) => enabledIn(channel, scan, file, database).map((e) => e.skill.name);
    expect(names('slack:C1')).toEqual(['beta', 'gamma', 'alpha', 'delta']);
    expect(names('slack:C2')).toEqual(['alpha', 'delta']);
    expect(enabledIn('slack:C2', scan, file, database).find((e) => e.skill.name === 'delta')?.source).toEqual({
      kind: 'database',
      by: 'slack:UADMIN',
      at: 0,
    });

    const statuses = Object.fromEntries(
      skillStatuses(scan, file, database).map((s) => [
        s.name,
        s.pins.map((p) => `${p.applied.source.kind}:${p.state}`),
      ]),
    );
    expect(statuses).toEqual({
      alpha: ['file:enabled'],
      beta: ['file-channel:enabled', 'file:changed'],
      gamma: ['file-channel:enabled'],
      delta: ['database:enabled'],
    });
  });

  it('a pin that no longer matches its folder, or names no folder, enables nothing', () => {
    const file = filePinsOf({}, {});
    const database = [dbPin('alpha', pin(7)), dbPin('omega', pin(8))];
    expect(enabledIn('slack:C1', scan, file, database)).toEqual([]);
    const states = skillStatuses(
      { ...scan, malformed: [{ folder: 'examples/omega', reason: 'bad' }] },
      file,
      database,
    ).filter((s) => s.pins.length > 0);
    expect(states.map((s) => [s.name, s.pins[0]!.state, s.malformedReason])).toEqual([
      ['alpha', 'changed', null],
      ['omega', 'malformed', 'bad'],
    ]);
  });
});

describe("the skills section of a run's system prompt", () => {
  const enabled = (n: number): EnabledSkill[] =>
    Array.from({ length: n }, (_, i) => ({
      skill: skill(`skill-${String(i).padStart(3, '0')}`, pin(i), { description: 'x'.repeat(200) }),
      source: { kind: 'file' },
    }));

  it('lists names and descriptions within the budget, then names only, then how many are left out', () => {
    const all = skillsSection(enabled(3), 1000);
    expect(all.split('\n').filter((l) => l.startsWith('- skill-'))).toHaveLength(3);
    // More than fit: as many described as leave room to name all the others.
    for (const count of [20, 200]) {
      const many = skillsSection(enabled(count), 1000);
      expect(Math.ceil(many.length / 4)).toBeLessThanOrEqual(1000);
      const described = many.split('\n').filter((l) => /^- skill-\d{3}: x+$/.test(l)).length;
      const named = /\n- Also enabled \(use_skill tells what they do\): (.*)$/.exec(many)?.[1]?.split(', ') ?? [];
      expect(described + named.length).toBe(count);
      expect(named.at(-1)).toBe(`skill-${String(count - 1).padStart(3, '0')}`);
      if (count === 20) expect(described).toBeGreaterThan(5);
    }
    // A budget too small to name them all: what fits, then how many are left out.
    const tight = skillsSection(enabled(200), 400);
    expect(Math.ceil(tight.length / 4)).toBeLessThanOrEqual(400);
    expect(tight).toMatch(
      /\n- Also enabled \(use_skill tells what they do\): (skill-\d{3}, ){20,}skill-\d{3}\n- …and \d+ more skills, not listed here\.$/,
    );
    expect(skillsSection(enabled(3), 0)).toBe('');
    expect(skillsSection([], 1000)).toBe('');
  });
});

describe('allowed-tools in one run', () => {
  const enabled: EnabledSkill[] = [
    skill('notes', pin(1), { allowedTools: ['remember', 'github__*'] }),
    skill('search', pin(2), { allowedTools: ['recall', 'github__search'] }),
    skill('free', pin(3)),
  ].map((s) => ({ skill: s, source: { kind: 'file' } }));

  it('narrows from the first followed skill with allowed-tools, never widens, and keeps the control tools', () => {
    const run = createRunSkills(enabled, '', createSkillMounts(), () => false);
    expect(run.offers('read_thread')).toBe(true);
    run.follow('free');
    expect(run.offers('read_thread')).toBe(true);
    run.follow('notes');
    expect(
      [
        'remember',
        'github__search',
        'github__create_issue',
        'task_complete',
        'ask_user',
        'send_update',
        'use_skill',
        'read_skill_file',
      ].filter((t) => !run.offers(t)),
    ).toEqual([]);
    expect(run.offers('read_thread')).toBe(false);
    expect(run.offers('recall')).toBe(false);
    run.follow('search');
    expect(run.offers('github__search')).toBe(true);
    expect(run.offers('github__create_issue')).toBe(false);
    expect(run.offers('remember')).toBe(false);
    expect(run.refusal('remember')).toBe(
      '"remember" is not offered while you follow search (allowed-tools: recall github__search): use the tools that skill allows, or finish with task_complete and say what else is needed.',
    );
    run.follow('free');
    expect(run.followed()).toEqual(['free', 'notes', 'search']);
  });

  it('reads back the skills a run followed from its transcript: only its own, successful use_skill calls', () => {
    const row = (runId: string, role: string, extra: object) => ({
      id: 0,
      conversationId: 'c',
      runId,
      role,
      content: null,
      toolCalls: null,
      toolCallId: null,
      authorId: null,
      platformMessageId: null,
      images: null,
      createdAt: 0,
      ...extra,
    });
    const rows = [
      row('r1', 'assistant', {
        toolCalls: [
          { id: 'a', name: 'use_skill', arguments: '{"name":"notes"}' },
          { id: 'b', name: 'use_skill', arguments: '{"name":"nope"}' },
        ],
      }),
      row('r1', 'tool', { toolCallId: 'a', content: '{"ok":true}' }),
      row('r1', 'tool', { toolCallId: 'b', content: '{"ok":false,"error":"x"}' }),
      row('r2', 'assistant', { toolCalls: [{ id: 'c', name: 'use_skill', arguments: '{"name":"search"}' }] }),
      row('r2', 'tool', { toolCallId: 'c', content: '{"ok":true}' }),
    ] as Parameters<typeof followedInTranscript>[0];
    expect(followedInTranscript(rows, 'r1')).toEqual(['notes']);
  });
});
