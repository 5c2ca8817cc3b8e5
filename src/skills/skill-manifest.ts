import { parseDocument } from 'yaml';
import { z } from 'zod';
import { SKILL_NAME } from '../settings/skills-settings.js';

/** The Agent Skills format's bounds (agentskills.io/specification). */
export const MAX_NAME_LENGTH = 64;
export const MAX_DESCRIPTION_LENGTH = 1024;
export const MAX_COMPATIBILITY_LENGTH = 500;

/** What a skill's front matter says, validated: the fields of the open format Errand uses. */
export interface SkillManifest {
  readonly name: string;
  readonly description: string;
  readonly license: string | null;
  readonly compatibility: string | null;
  /** The tools the skill may use while the model follows it (`allowed-tools`); null: the front matter sets none. */
  readonly allowedTools: readonly string[] | null;
  readonly metadata: Readonly<Record<string, string>>;
}

/** A parsed SKILL.md: its manifest and the Markdown body (the instructions), or why it cannot be loaded. */
export type ParsedSkill =
  | { readonly ok: true; readonly manifest: SkillManifest; readonly body: string }
  | { readonly ok: false; readonly reason: string };

const text = (field: string) =>
  z.string({ error: (i) => (i.input === undefined ? `${field} is required` : `${field} must be text`) });

/**
 * The front matter as the format defines it. Keys the format does not name (`version`, a tool's own extras) are
 * ignored rather than refused, so a team's skills written for another agent still load here.
 */
const frontMatterSchema = z.object({
  name: text('name')
    .min(1, 'name is empty')
    .max(MAX_NAME_LENGTH, `name has more than ${MAX_NAME_LENGTH} characters`)
    .regex(
      SKILL_NAME,
      'name may hold only lowercase letters, digits and single hyphens, and may not start or end with a hyphen (e.g. "release-notes")',
    ),
  description: text('description')
    .refine((d) => d.trim() !== '', 'description is empty: say what the skill does and when to use it')
    .refine((d) => d.length <= MAX_DESCRIPTION_LENGTH, {
      error: (i) => `description has ${String(i.input).length} characters; at most ${MAX_DESCRIPTION_LENGTH}`,
    }),
  license: text('license').optional(),
  compatibility: text('compatibility')
    .max(MAX_COMPATIBILITY_LENGTH, `compatibility has more than ${MAX_COMPATIBILITY_LENGTH} characters`)
    .optional(),
  'allowed-tools': z
    .union([z.string(), z.array(z.string())], {
      error: 'allowed-tools must be a space-separated list of tool names (or a YAML list of them)',
    })
    .optional(),
  metadata: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String), {
      error: 'metadata must map keys to text values',
    })
    .optional(),
});

/** `allowed-tools` as a list: the format writes it space-separated; commas (as some agents write it) separate too. */
export function allowedToolsList(value: string | readonly string[]): string[] {
  const items = typeof value === 'string' ? [value] : value;
  return items.flatMap((item) => item.split(/[\s,]+/)).filter((t) => t !== '');
}

/** Opening and closing `---` lines of the front matter (a byte-order mark and CRLF line ends allowed). */
const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
const EMPTY_FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * Reads a SKILL.md: YAML front matter between `---` lines (parsed by `yaml`: duplicate keys and aliases past a
 * small count refused), then the body. `folderName` is the skill's folder: the format requires the name to match.
 * Every refusal says what is wrong and how to fix it, for the log and `/skills`.
 */
export function parseSkillMd(source: string, folderName: string): ParsedSkill {
  if (EMPTY_FRONT_MATTER.test(source))
    return { ok: false, reason: 'the front matter is empty: it needs at least name and description' };
  const match = FRONT_MATTER.exec(source);
  if (!match)
    return {
      ok: false,
      reason:
        'SKILL.md must start with YAML front matter between two "---" lines, holding at least name and description',
    };
  const doc = parseDocument(match[1]!, { uniqueKeys: true, prettyErrors: true });
  const problem = doc.errors[0];
  if (problem) {
    // The usual slip: a plain value holding ": " (YAML reads a second key in it).
    const hint =
      problem.code === 'BLOCK_AS_IMPLICIT_KEY' ? '; a value holding ": " must be quoted (description: "…")' : '';
    return {
      ok: false,
      reason: `the front matter is not valid YAML: ${problem.message.split('\n')[0]!.replace(/:$/, '')}${hint}`,
    };
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 20 });
  } catch (err) {
    return {
      ok: false,
      reason: `the front matter is not valid YAML: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    return { ok: false, reason: 'the front matter must be a YAML mapping of fields (name: …, description: …)' };
  const parsed = frontMatterSchema.safeParse(data);
  if (!parsed.success) return { ok: false, reason: parsed.error.issues.map((i) => i.message).join('; ') };
  const fm = parsed.data;
  if (fm.name !== folderName)
    return {
      ok: false,
      reason: `name "${fm.name}" does not match its folder "${folderName}": the format requires them to be the same, so rename one`,
    };
  const allowed = fm['allowed-tools'];
  return {
    ok: true,
    manifest: {
      name: fm.name,
      description: fm.description.trim(),
      license: fm.license ?? null,
      compatibility: fm.compatibility ?? null,
      allowedTools: allowed === undefined ? null : allowedToolsList(allowed),
      metadata: fm.metadata ?? {},
    },
    body: source.slice(match[0].length).trim(),
  };
}
