import { describe, expect, it } from 'vitest';
import { parseSkillMd } from '../../src/skills/skill-manifest.js';

const md = (frontMatter: string, body = '# Steps\n1. Do it.') => `---\n${frontMatter}\n---\n${body}\n`;
const reason = (source: string, folder = 'release-notes') => {
  const parsed = parseSkillMd(source, folder);
  if (parsed.ok) throw new Error('expected a refusal');
  return parsed.reason;
};

describe('SKILL.md front matter (the Agent Skills format)', () => {
  it('reads name, description, the optional fields and the body', () => {
    const parsed = parseSkillMd(
      md(
        [
          'name: release-notes',
          'description: >-',
          '  Write the release notes from merged pull requests.',
          '  Use when someone asks for release notes.',
          'license: Apache-2.0',
          'compatibility: Needs git',
          'allowed-tools: run_code read_thread',
          'metadata:',
          '  author: team',
          '  version: 1.2',
          'version: 3',
        ].join('\n'),
      ),
      'release-notes',
    );
    expect(parsed).toEqual({
      ok: true,
      manifest: {
        name: 'release-notes',
        description: 'Write the release notes from merged pull requests. Use when someone asks for release notes.',
        license: 'Apache-2.0',
        compatibility: 'Needs git',
        allowedTools: ['run_code', 'read_thread'],
        metadata: { author: 'team', version: '1.2' },
      },
      body: '# Steps\n1. Do it.',
    });
  });

  it('takes allowed-tools as a YAML list or comma-separated too, and CRLF line ends with a byte-order mark', () => {
    const list = parseSkillMd(md('name: a\ndescription: d\nallowed-tools:\n  - run_code\n  - github__*'), 'a');
    expect(list.ok && list.manifest.allowedTools).toEqual(['run_code', 'github__*']);
    const crlf = parseSkillMd(
      '\uFEFF---\r\nname: a\r\ndescription: d\r\nallowed-tools: run_code, recall\r\n---\r\nBody\r\n',
      'a',
    );
    expect(crlf.ok && crlf.manifest.allowedTools).toEqual(['run_code', 'recall']);
    expect(crlf.ok && crlf.body).toBe('Body');
  });

  it('refuses names the format forbids, and a name that is not its folder', () => {
    expect(reason(md('name: Release-Notes\ndescription: d'), 'Release-Notes')).toMatch(
      /lowercase letters, digits and single hyphens/,
    );
    expect(reason(md('name: -release\ndescription: d'), '-release')).toMatch(/may not start or end with a hyphen/);
    expect(reason(md('name: release-\ndescription: d'), 'release-')).toMatch(/single hyphens/);
    expect(reason(md('name: release--notes\ndescription: d'), 'release--notes')).toMatch(/single hyphens/);
    expect(reason(md(`name: ${'a'.repeat(65)}\ndescription: d`), 'a'.repeat(65))).toMatch(/more than 64 characters/);
    expect(reason(md('name: notes\ndescription: d'), 'release-notes')).toBe(
      'name "notes" does not match its folder "release-notes": the format requires them to be the same, so rename one',
    );
    expect(reason(md('description: d'))).toBe('name is required');
    expect(reason(md('name: 42\ndescription: d'))).toBe('name must be text');
  });

  it('requires a description of 1 to 1024 characters', () => {
    expect(reason(md('name: release-notes'))).toBe('description is required');
    expect(reason(md('name: release-notes\ndescription: "   "'))).toMatch(/^description is empty/);
    expect(parseSkillMd(md(`name: release-notes\ndescription: ${'d'.repeat(1024)}`), 'release-notes').ok).toBe(true);
    expect(reason(md(`name: release-notes\ndescription: ${'d'.repeat(1025)}`))).toBe(
      'description has 1025 characters; at most 1024',
    );
    expect(reason(md(`name: release-notes\ndescription: d\ncompatibility: ${'c'.repeat(501)}`))).toMatch(
      /compatibility has more than 500/,
    );
  });

  it('refuses front matter that is missing, empty, not YAML, not a mapping, or has a key twice', () => {
    expect(reason('# Release notes\nNo front matter.')).toMatch(/^SKILL.md must start with YAML front matter/);
    expect(reason('---\nname: release-notes\ndescription: never closed\n')).toMatch(
      /^SKILL.md must start with YAML front matter/,
    );
    expect(reason('---\n---\nbody')).toMatch(/^the front matter is empty/);
    expect(reason(md('name: release-notes\ndescription: [unclosed'))).toMatch(/^the front matter is not valid YAML: /);
    expect(reason(md('name: release-notes\nname: release-notes\ndescription: d'))).toMatch(
      /^the front matter is not valid YAML: .*unique/i,
    );
    expect(reason(md('name: release-notes\ndescription: Notes: from merged pull requests'))).toBe(
      'the front matter is not valid YAML: Nested mappings are not allowed in compact mappings at line 2, column 14; a value holding ": " must be quoted (description: "…")',
    );
    expect(reason(md('- name\n- description'))).toBe(
      'the front matter must be a YAML mapping of fields (name: …, description: …)',
    );
    expect(reason(md('name: release-notes\ndescription: d\nallowed-tools: {a: 1}'))).toMatch(
      /^allowed-tools must be a space-separated list/,
    );
  });
});
