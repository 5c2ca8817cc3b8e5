import { realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { readNoFollow, sha256Hex, type SkillFileEntry } from './skill-folder.js';
import type { LoadedSkill } from './skill-scan.js';

/** Most characters of one file `read_skill_file` hands the model (a file past it is cut, with a note saying so). */
export const MAX_SKILL_FILE_CHARS = 40_000;

export type SkillFileRead =
  | {
      readonly ok: true;
      readonly path: string;
      readonly text: string;
      readonly bytes: number;
      readonly truncated: boolean;
    }
  | { readonly ok: false; readonly error: string };

const refuse = (error: string): SkillFileRead => ({ ok: false, error });

/** Where a skill's folder appears inside the sandbox. */
export const sandboxPathOf = (name: string) => `/skills/${name}`;

/**
 * A path as the model wrote it, made a path inside the skill's folder, or the reason it is refused: absolute paths
 * and `..` never, whatever they would resolve to (a path is judged as written, not after the file system had a say).
 */
export function skillRelativePath(
  skillName: string,
  requested: string,
): { ok: true; path: string } | { ok: false; error: string } {
  const p = requested.trim();
  if (p === '')
    return {
      ok: false,
      error: 'path is empty: give a file of the skill, relative to its folder (e.g. "references/guide.md")',
    };
  if (p.includes('\0')) return { ok: false, error: 'path holds a NUL character' };
  if (p.includes('\\'))
    return { ok: false, error: `"${p}" holds a backslash: separate folders with "/" (e.g. "references/guide.md")` };
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) {
    const mounted = `${sandboxPathOf(skillName)}/`;
    const hint = p.startsWith(mounted) ? ` Here, ask for "${p.slice(mounted.length)}".` : '';
    return {
      ok: false,
      error: `"${p}" is an absolute path: give a path relative to the skill's folder (e.g. "references/guide.md"); nothing outside the folder can be read.${hint}`,
    };
  }
  const parts = p.split('/').filter((s) => s !== '' && s !== '.');
  if (parts.includes('..'))
    return { ok: false, error: `"${p}" goes up with "..": only files inside the skill's folder can be read` };
  if (parts.length === 0) return { ok: false, error: `"${p}" is the skill's folder itself: give one of its files` };
  return { ok: true, path: parts.join('/') };
}

/** Whether a real path lies inside (or is) the folder's real path. */
const inside = (dir: string, real: string) => real === dir || real.startsWith(dir + sep);

/**
 * One file of an enabled skill, as text, for `read_skill_file`. Refused: absolute paths and `..`; a symbolic link
 * (or a folder swapped for one) whose real path leaves the skill's folder; a file not in the folder as it was
 * pinned, or whose bytes changed since (only approved content reaches the model); binary files. Cut at `maxChars`.
 */
export async function readSkillFile(
  skill: LoadedSkill,
  requested: string,
  maxChars = MAX_SKILL_FILE_CHARS,
): Promise<SkillFileRead> {
  const checked = skillRelativePath(skill.name, requested);
  if (!checked.ok) return refuse(checked.error);
  const { path } = checked;
  const byPath = new Map<string, SkillFileEntry>(skill.digest.entries.map((e) => [e.path, e]));
  let entry = byPath.get(path);
  if (!entry) {
    const within = skill.digest.entries.filter((e) => e.path.startsWith(`${path}/`)).map((e) => e.path);
    if (within.length > 0)
      return refuse(`"${path}" is a folder of ${skill.name}; its files: ${within.slice(0, 50).join(', ')}`);
    return refuse(
      `${skill.name} has no file "${path}". Its files: ${skill.digest.entries
        .map((e) => e.path)
        .slice(0, 50)
        .join(', ')}`,
    );
  }
  let real: string;
  try {
    real = await realpath(join(skill.dir, path));
  } catch {
    return refuse(
      entry.kind === 'link'
        ? `"${path}" is a symbolic link to nothing`
        : `"${path}" is gone from ${skill.name}'s folder since it was approved`,
    );
  }
  if (!inside(skill.dir, real))
    return refuse(
      `"${path}" leads outside ${skill.name}'s folder (a symbolic link to ${entry.kind === 'link' ? entry.target : 'elsewhere'}): it is not read`,
    );
  const target = relative(skill.dir, real).split(sep).join('/');
  if (entry.kind === 'link') {
    const linked = byPath.get(target);
    if (!linked || linked.kind !== 'file')
      return refuse(`"${path}" is a symbolic link to ${entry.target}, which is not a file of ${skill.name}`);
    entry = linked;
  } else if (target !== path) {
    return refuse(
      `"${path}" changed since ${skill.name} was approved (a folder on its way is now a link): it is not read until an admin approves the skill again`,
    );
  }
  let bytes: Buffer;
  try {
    bytes = (await readNoFollow(real)).bytes;
  } catch {
    return refuse(`"${path}" could not be read`);
  }
  if (sha256Hex(bytes) !== entry.sha256)
    return refuse(
      `"${path}" changed since ${skill.name} was approved: it is not read until an admin approves the skill again (/skills enable ${skill.name})`,
    );
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    text = '\0';
  }
  if (text.includes('\0'))
    return refuse(
      `"${path}" is a binary file (${bytes.length} bytes), not text: it is not shown here; code run with run_code finds it at ${sandboxPathOf(skill.name)}/${entry.path}`,
    );
  const truncated = text.length > maxChars;
  return {
    ok: true,
    path: entry.path,
    text: truncated ? text.slice(0, maxChars) : text,
    bytes: bytes.length,
    truncated,
  };
}
