import { lstat, readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { digestFolder, FOLDER_LIMITS, type FolderDigest, type FolderLimits } from './skill-folder.js';
import { parseSkillMd, type SkillManifest } from './skill-manifest.js';

/** A skill read from SKILLS_DIR, valid, with the pin of its folder as it was read. Enabled or not is decided apart. */
export interface LoadedSkill {
  readonly name: string;
  /** The folder's real path on this host (what the sandbox mounts at `/skills/<name>`). */
  readonly dir: string;
  /** Where it sits under SKILLS_DIR, as `/skills` shows it: `release-notes` or `examples/csv-summary`. */
  readonly folder: string;
  readonly manifest: SkillManifest;
  /** The instructions: SKILL.md after its front matter, as pinned (held in memory, never read again). */
  readonly body: string;
  readonly digest: FolderDigest;
}

/** A folder of SKILLS_DIR that is not loaded, and why (shown to admins by `/skills`, logged at start-up). */
export interface MalformedSkill {
  readonly folder: string;
  readonly reason: string;
}

/** One reading of SKILLS_DIR. */
export interface SkillScan {
  /** SKILLS_DIR as configured. */
  readonly dir: string;
  /** False when SKILLS_DIR does not exist (no skills, nothing wrong). */
  readonly found: boolean;
  readonly skills: ReadonlyMap<string, LoadedSkill>;
  readonly malformed: readonly MalformedSkill[];
}

/** The sub-folder of SKILLS_DIR whose folders are example skills (`skills/examples/<name>/`): found like any other, enabled by nobody. */
export const EXAMPLES_FOLDER = 'examples';
/** Largest SKILL.md read: the format asks for a body under 5 000 tokens; this leaves room and stops a stray file. */
export const MAX_SKILL_MD_BYTES = 256 * 1024;
/** Folders read at once. */
const PARALLEL = 8;

type FolderOutcome = { ok: true; skill: LoadedSkill } | { ok: false; malformed: MalformedSkill } | null;

/** Reads one candidate folder (`folder` relative to SKILLS_DIR, its last part the skill's name). */
async function readSkillFolder(root: string, folder: string, limits: FolderLimits): Promise<FolderOutcome> {
  const name = folder.split('/').at(-1)!;
  const dir = join(root, folder);
  const refuse = (reason: string): FolderOutcome => ({ ok: false, malformed: { folder, reason } });
  const stat = await lstat(dir);
  if (stat.isSymbolicLink())
    return refuse(
      "it is a symbolic link: put the skill's folder itself in SKILLS_DIR (a link could lead anywhere, and its target would not be pinned)",
    );
  if (!stat.isDirectory()) return null;
  // SKILL.md's bytes come from the walk itself: what is parsed is exactly what the pin covers.
  const digested = await digestFolder(dir, limits, (path) => path === 'SKILL.md');
  if (!digested.ok) return refuse(digested.reason);
  const entry = digested.digest.entries.find((e) => e.path === 'SKILL.md');
  if (!entry)
    return refuse(
      'it has no SKILL.md (a skill is a folder with a SKILL.md holding its name, description and instructions)',
    );
  if (entry.kind !== 'file') return refuse('SKILL.md is a symbolic link: it must be a file of the folder');
  if (entry.size > MAX_SKILL_MD_BYTES)
    return refuse(
      `SKILL.md has ${Math.ceil(entry.size / 1024)} KB; at most ${MAX_SKILL_MD_BYTES / 1024} KB (move details to references/)`,
    );
  const bytes = digested.kept.get('SKILL.md')!;
  let source: string;
  try {
    source = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return refuse('SKILL.md is not UTF-8 text');
  }
  const parsed = parseSkillMd(source, name);
  if (!parsed.ok) return refuse(parsed.reason);
  return {
    ok: true,
    skill: {
      name,
      dir: await realpath(dir),
      folder,
      manifest: parsed.manifest,
      body: parsed.body,
      digest: digested.digest,
    },
  };
}

/** The visible sub-folders of a folder, sorted (dot-folders such as `.git` are not skills). */
async function childFolders(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((e) => !e.name.startsWith('.') && (e.isDirectory() || e.isSymbolicLink()))
    .map((e) => e.name)
    .sort();
}

/**
 * Reads SKILLS_DIR: each folder `<name>/` and each `examples/<name>/` whose SKILL.md is valid is a skill, with its
 * folder's pin; every other folder is listed as malformed with the reason. A name found twice keeps the first
 * (`<name>/` before `examples/<name>/`). Reads everything it pins (bytes are hashed), so it costs a few milliseconds
 * per megabyte of skills: done at start-up and when an admin asks, never per run.
 */
export async function scanSkills(skillsDir: string, limits: FolderLimits = FOLDER_LIMITS): Promise<SkillScan> {
  let root: string;
  try {
    root = await realpath(skillsDir);
  } catch {
    return { dir: skillsDir, found: false, skills: new Map(), malformed: [] };
  }
  const top = await childFolders(root);
  const folders = top.filter((f) => f !== EXAMPLES_FOLDER);
  if (top.includes(EXAMPLES_FOLDER) && (await lstat(join(root, EXAMPLES_FOLDER))).isDirectory()) {
    folders.push(...(await childFolders(join(root, EXAMPLES_FOLDER))).map((f) => `${EXAMPLES_FOLDER}/${f}`));
  }
  const outcomes: FolderOutcome[] = new Array(folders.length).fill(null);
  let next = 0;
  const worker = async () => {
    while (next < folders.length) {
      const i = next++;
      try {
        outcomes[i] = await readSkillFolder(root, folders[i]!, limits);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        outcomes[i] = {
          ok: false,
          malformed: { folder: folders[i]!, reason: `it could not be read (${code ?? String(err)})` },
        };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, folders.length) }, worker));
  const skills = new Map<string, LoadedSkill>();
  const malformed: MalformedSkill[] = [];
  for (const outcome of outcomes) {
    if (outcome === null) continue;
    if (!outcome.ok) malformed.push(outcome.malformed);
    else if (skills.has(outcome.skill.name))
      malformed.push({
        folder: outcome.skill.folder,
        reason: `a skill named ${outcome.skill.name} is already loaded from ${skills.get(outcome.skill.name)!.folder}; this one is skipped`,
      });
    else skills.set(outcome.skill.name, outcome.skill);
  }
  return { dir: skillsDir, found: true, skills, malformed };
}
