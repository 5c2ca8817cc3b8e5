import type { AccessPolicy, Person } from '../access/access-policy.js';
import { createRunSkillsSource, type RunSkillsSource } from '../agent/run-skills.js';
import { createSkillTools } from '../agent/tools/skill-tools.js';
import type { ToolDefinition } from '../agent/tools/tool.js';
import type { SurfaceSink } from '../chat/surface-sink.js';
import type { Clock } from '../clock.js';
import type { SkillsCommandDeps } from '../commands/skills-command.js';
import { skillsOnHome } from '../commands/skills-home.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { filePinsOf } from '../skills/skill-enablement.js';
import { createSkillLibrary, logSkillsAtStart, type SkillLibrary } from '../skills/skill-library.js';
import { createSkillMounts, type SkillMounts } from '../skills/skill-mounts.js';
import type { SkillPinStore } from '../skills/skill-pin-store.js';
import { scanSkills } from '../skills/skill-scan.js';

/** Skills, wired (DESIGN.md "Skills"): what the app hands its tools, runs, commands and App Home. */
export interface SkillsSetup {
  readonly library: SkillLibrary;
  /** use_skill and read_skill_file (offered only in runs where some skill is enabled). */
  readonly tools: readonly ToolDefinition[];
  /** Each run's enabled skills, prompt section and allowed-tools state. */
  readonly runs: RunSkillsSource;
  readonly command: SkillsCommandDeps;
  /** The read-only mounts the sandbox gives `run_code` (also reachable per run as `ToolContext.skills.mounts()`). */
  readonly mounts: SkillMounts;
  /** The App Home with its Skills section. */
  onHome<S extends Pick<SurfaceSink, 'onHomeOpened'>>(surfaces: S): S;
}

export interface SkillsSetupDeps {
  readonly config: Pick<Config, 'SKILLS_DIR' | 'SKILLS_TOKEN_BUDGET' | 'file'>;
  readonly pins: SkillPinStore;
  readonly access: AccessPolicy;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Whether a sandbox runs `run_code` here; absent: none yet, and use_skill says a skill's scripts cannot run. */
  readonly sandboxAvailable?: () => boolean;
}

/**
 * Reads SKILLS_DIR once (start-up logs what is malformed, changed or missing) and builds the parts of skills.
 * Who manages skills: admins (`access.admins`); while the configuration file has no `access` rules at all,
 * everyone (as for stopping runs), so a newcomer trying Errand can enable the example with one command.
 */
export async function setUpSkills(deps: SkillsSetupDeps): Promise<SkillsSetup> {
  const { config, logger } = deps;
  const log = logger.child({ part: 'skills' });
  const scan = () => scanSkills(config.SKILLS_DIR);
  const library = createSkillLibrary(await scan(), {
    scan,
    pins: deps.pins,
    file: filePinsOf(config.file.settings.skills, config.file.settings.channels),
    clock: deps.clock,
    logger: log,
  });
  logSkillsAtStart(await library.overview(), log);
  const mounts = createSkillMounts();
  const mayManage = (person: Person) => !deps.access.configured || deps.access.isAdmin(person);
  const command: SkillsCommandDeps = { library, mayManage };
  return {
    library,
    tools: createSkillTools(),
    runs: createRunSkillsSource({
      library,
      mounts,
      tokenBudget: config.SKILLS_TOKEN_BUDGET,
      ...(deps.sandboxAvailable ? { sandboxAvailable: deps.sandboxAvailable } : {}),
    }),
    command,
    mounts,
    onHome: (surfaces) => skillsOnHome(surfaces, { library, mayManage }),
  };
}
