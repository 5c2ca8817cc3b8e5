import { digestFolder, type DigestResult } from './skill-folder.js';
import { sandboxPathOf } from './skill-file-read.js';
import type { LoadedSkill } from './skill-scan.js';

/** One read-only mount of a sandboxed `run_code` call: a skill's folder on this host, seen at `/skills/<name>` inside. */
export interface SkillMount {
  readonly name: string;
  /** The folder's real path on this host (a bind source). */
  readonly hostPath: string;
  /** Where code in the sandbox finds it: `/skills/<name>`. Always mounted read-only. */
  readonly sandboxPath: string;
}

/** The mounts of one call, and the enabled skills left out because their folder no longer has its pin. */
export interface SkillMountPlan {
  readonly mounts: readonly SkillMount[];
  readonly skipped: readonly { readonly name: string; readonly reason: string }[];
}

/**
 * What the sandbox asks before each `run_code` call of a run (DESIGN.md "Skills": scripts run only through
 * `run_code`, with the folder mounted read-only at `/skills/<name>`). Each folder is hashed again at that moment:
 * one whose content no longer has the pin it was enabled with is not mounted, so code never sees unapproved files.
 * (What can still change between this check and the mount is the window of one bind; the sandbox mounts read-only.)
 */
export interface SkillMounts {
  /** The mounts for the skills enabled in a run. */
  plan(skills: readonly LoadedSkill[]): Promise<SkillMountPlan>;
}

/** The mounts, checked with `digest` (the folder hash; injectable for tests). */
export function createSkillMounts(digest: (dir: string) => Promise<DigestResult> = digestFolder): SkillMounts {
  return {
    async plan(skills) {
      const checked = await Promise.all(skills.map(async (skill) => ({ skill, now: await digest(skill.dir) })));
      const mounts: SkillMount[] = [];
      const skipped: { name: string; reason: string }[] = [];
      for (const { skill, now } of checked) {
        if (!now.ok) skipped.push({ name: skill.name, reason: `its folder cannot be read now: ${now.reason}` });
        else if (now.digest.pin !== skill.digest.pin)
          skipped.push({
            name: skill.name,
            reason: 'its folder changed since it was approved; an admin must approve it again (/skills enable)',
          });
        else mounts.push({ name: skill.name, hostPath: skill.dir, sandboxPath: sandboxPathOf(skill.name) });
      }
      return { mounts, skipped };
    },
  };
}
