import { z } from 'zod';

/** A skill's name as the Agent Skills format allows it: lowercase letters, digits and single hyphens, at most 64. */
export const SKILL_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

const skillName = z
  .string()
  .max(64, 'a skill name has at most 64 characters')
  .regex(SKILL_NAME, 'expected a skill name of lowercase letters, digits and single hyphens (e.g. "release-notes")');

/** The pin of an enabled skill: the sha256 of its folder, as `/skills` shows it. */
const skillPin = z
  .string()
  .regex(/^sha256:[0-9a-f]{64}$/, 'expected "sha256:" and 64 hex digits, the pin /skills shows for that skill');

/**
 * Skills enabled by the configuration file, each pinned to the hash of its folder (`{"release-notes":
 * "sha256:…"}`): a folder whose content no longer has that hash is not loaded until an admin approves it again.
 * At the top level: every channel; under `channels.<id>.skills`: that channel only.
 */
export const skillsSchema = z.record(skillName, skillPin);

export type SkillsSettings = z.infer<typeof skillsSchema>;
