import { z } from 'zod';
import { MAX_SKILL_FILE_CHARS, readSkillFile, sandboxPathOf } from '../../skills/skill-file-read.js';
import type { LoadedSkill } from '../../skills/skill-scan.js';
import { ALWAYS_OFFERED, type RunSkills } from '../run-skills.js';
import { defineTool, fail, ok, type ToolContext, type ToolDefinition } from './tool.js';

/** Files listed by use_skill (a skill with more lists these and says how many it left out). */
const LISTED_FILES = 200;

const skillName = z
  .string()
  .trim()
  .min(1, 'name is empty: give the name of an enabled skill')
  .max(64, 'a skill name has at most 64 characters');

/** The refusal for a name that is not enabled in this run, with the names that are. */
function notEnabled(name: string, skills: RunSkills | undefined): string {
  const names = skills?.enabled.map((e) => e.skill.name) ?? [];
  return names.length > 0
    ? `No skill "${name}" is enabled here. Enabled skills: ${names.join(', ')}.`
    : `No skill "${name}" is enabled here: no skill is enabled in this channel.`;
}

/**
 * What the model is told about a skill's scripts. They run only through run_code, in the sandbox, with the folder
 * mounted read-only at /skills/<name>; where no sandbox runs code (or the skills followed leave run_code out) they
 * cannot run, and the model is told so rather than left to try.
 */
function scriptsNote(skill: LoadedSkill, scripts: readonly string[], skills: RunSkills): string {
  const folder = sandboxPathOf(skill.name);
  if (!skills.sandbox()) {
    return `Its scripts (${scripts.join(', ')}) cannot run here yet: this installation has no sandbox for run_code, and Errand runs code nowhere else. Do not try to run them: follow the instructions without them, and tell the person which step needed a script.`;
  }
  if (!skills.offers('run_code')) {
    return `Its scripts (${scripts.join(', ')}) cannot run in this request: a skill you follow leaves run_code out of its allowed-tools. Follow the instructions without running them, and tell the person which step needed a script.`;
  }
  return `Run its scripts only with run_code: this folder is mounted read-only at ${folder} (e.g. ${folder}/${scripts[0]}); write what you produce under /workspace/out/.`;
}

/**
 * The skill tools (DESIGN.md "Skills", progressive disclosure): `use_skill` gives the body of an enabled skill and
 * the list of its files, and from then on the skill's `allowed-tools` limit the run's tools; `read_skill_file`
 * gives one file of it, as pinned. Offered only in runs where some skill is enabled.
 */
export function createSkillTools(): ToolDefinition[] {
  const enabledHere = (ctx: ToolContext) => ctx.skills !== undefined;
  return [
    defineTool({
      name: 'use_skill',
      description:
        'Open an enabled skill (listed in your instructions under "Skills"): returns its instructions, which you then follow, and the list of its files. Call it before you do work that matches the skill\'s description.',
      parameters: z.object({ name: skillName }),
      availableIn: enabledHere,
      execute({ name }, ctx) {
        const skills = ctx.skills;
        const skill = skills?.get(name) ?? null;
        if (!skills || !skill) return fail(notEnabled(name, skills));
        skills.follow(skill.name);
        const files = skill.digest.entries.map((e) => e.path);
        const scripts = skill.digest.entries
          .filter((e) => e.kind === 'file' && e.path.startsWith('scripts/'))
          .map((e) => e.path);
        const allowed = skill.manifest.allowedTools;
        const cut = skill.body.length > MAX_SKILL_FILE_CHARS;
        return ok({
          name: skill.name,
          description: skill.manifest.description,
          instructions: cut ? skill.body.slice(0, MAX_SKILL_FILE_CHARS) : skill.body,
          ...(cut
            ? {
                instructions_note: `Only the first ${MAX_SKILL_FILE_CHARS} characters of the instructions are shown: the skill is longer than a request should carry.`,
              }
            : {}),
          files: files.slice(0, LISTED_FILES),
          ...(files.length > LISTED_FILES ? { files_not_listed: files.length - LISTED_FILES } : {}),
          ...(allowed !== null
            ? {
                allowed_tools: allowed,
                tools_note: `While you follow this skill, only these tools are offered, besides ${[...ALWAYS_OFFERED].join(', ')}.`,
              }
            : {}),
          ...(scripts.length > 0 ? { scripts: scriptsNote(skill, scripts, skills) } : {}),
          ...(skill.manifest.compatibility ? { compatibility: skill.manifest.compatibility } : {}),
        });
      },
    }),
    defineTool({
      name: 'read_skill_file',
      description:
        'Read one file of an enabled skill as text (a reference, a template, a script\'s source), by its path relative to the skill\'s folder as use_skill lists it, e.g. "references/guide.md".',
      parameters: z.object({ name: skillName, path: z.string().max(1024, 'path is too long') }),
      availableIn: enabledHere,
      async execute({ name, path }, ctx) {
        const skill = ctx.skills?.get(name) ?? null;
        if (!skill) return fail(notEnabled(name, ctx.skills));
        const read = await readSkillFile(skill, path);
        if (!read.ok) return fail(read.error);
        return ok({
          name: skill.name,
          path: read.path,
          text: read.text,
          ...(read.truncated
            ? { note: `Only the first ${MAX_SKILL_FILE_CHARS} characters of this ${read.bytes}-byte file are shown.` }
            : {}),
        });
      },
    }),
  ];
}
