import type { Person } from '../access/access-policy.js';
import type { HomeSkill, HomeSkills } from '../chat/home-skills.js';
import type { HomeRequest } from '../chat/schedule-form.js';
import type { SurfaceSink } from '../chat/surface-sink.js';
import type { SkillLibrary } from '../skills/skill-library.js';
import type { SkillsCommandDeps } from './skills-command.js';

/** Skills listed on the Home (a view holds at most 100 blocks; the section is one block of text, so each is short). */
const LISTED = 25;
const DESCRIBED = 100;
const short = (text: string) => (text.length > DESCRIBED ? `${text.slice(0, DESCRIBED - 1).trimEnd()}…` : text);

/**
 * The App Home's Skills section: the skills enabled everywhere, and those enabled only in channels of the person's
 * platform (with those channels); for admins, how many are held back. Reads SKILLS_DIR as last read (opening the
 * Home reads no file), and the pins.
 */
export async function buildHomeSkills(
  request: Pick<HomeRequest, 'platform' | 'userId' | 'roles'>,
  deps: { readonly library: Pick<SkillLibrary, 'overview'>; mayManage(person: Person): boolean },
): Promise<HomeSkills> {
  const { scan, statuses } = await deps.library.overview();
  const prefix = `${request.platform}:`;
  const enabled: HomeSkill[] = [];
  let held = 0;
  for (const s of statuses) {
    if (s.pins.some((p) => p.state !== 'enabled')) held++;
    const on = s.pins.filter((p) => p.state === 'enabled');
    if (!s.skill || on.length === 0) continue;
    const everywhere = on.some((p) => p.applied.source.kind !== 'file-channel');
    const channels = on.flatMap((p) =>
      p.applied.source.kind === 'file-channel' && p.applied.source.channel.startsWith(prefix)
        ? [p.applied.source.channel.slice(prefix.length)]
        : [],
    );
    if (everywhere || channels.length > 0)
      enabled.push({
        name: s.name,
        description: short(s.skill.manifest.description),
        channels: everywhere ? null : channels,
      });
  }
  held += scan.malformed.length;
  const person: Person = {
    platform: request.platform,
    userId: request.userId,
    ...(request.roles ? { roles: request.roles } : {}),
  };
  const attention =
    deps.mayManage(person) && held > 0
      ? `${held} skill${held === 1 ? ' is' : 's are'} held back (changed since approved, malformed or missing): \`/skills\` says which and why.`
      : null;
  return { enabled: enabled.slice(0, LISTED), attention };
}

/** The App Home with its Skills section, beside whatever `surfaces` already shows. */
export function skillsOnHome<S extends Pick<SurfaceSink, 'onHomeOpened'>>(
  surfaces: S,
  deps: Pick<SkillsCommandDeps, 'mayManage'> & { readonly library: Pick<SkillLibrary, 'overview'> },
): S {
  return {
    ...surfaces,
    async onHomeOpened(request) {
      const [model, skills] = await Promise.all([surfaces.onHomeOpened(request), buildHomeSkills(request, deps)]);
      return { ...model, skills };
    },
  };
}
