import type { Person } from '../access/access-policy.js';
import type { ChannelRef } from '../chat/conversation-ref.js';
import type { CommandReply, InboundCommand } from '../chat/inbound.js';
import { type EnabledSkill, type PinSource, type SkillStatus } from '../skills/skill-enablement.js';
import type { SkillLibrary } from '../skills/skill-library.js';

/** What `/skills` needs: the library, and who may enable and disable skills. */
export interface SkillsCommandDeps {
  readonly library: Pick<SkillLibrary, 'enabledFor' | 'report' | 'enable' | 'disable'>;
  /** Who may see every skill and enable or disable them (admins; everyone while no `access` rules are set). */
  mayManage(person: Person): boolean;
}

const USAGE =
  'Use `/skills` to see the skills enabled here, or (admins) `/skills enable <name>` and `/skills disable <name>`.';
/** Lines per section, so one reply stays readable (and within what a platform takes). */
const LISTED = 30;
const DESCRIBED = 140;

const short = (text: string) => (text.length > DESCRIBED ? `${text.slice(0, DESCRIBED - 1).trimEnd()}…` : text);
const shortPin = (pin: string) => `${pin.slice(0, 'sha256:'.length + 12)}…`;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A principal key (`slack:U…`) as a mention where the command's platform can show it, else as written. */
function who(key: string, platform: string): string {
  const at = key.indexOf(':');
  return at > 0 && key.slice(0, at) === platform && platform !== 'console' ? `<@${key.slice(at + 1)}>` : key;
}

function sourceText(source: PinSource, platform: string): string {
  if (source.kind === 'database') return `enabled by ${who(source.by, platform)} on ${day(source.at)}`;
  if (source.kind === 'file') return 'pinned in the configuration file';
  return `pinned in the configuration file for ${source.channel}`;
}

function capped(lines: string[]): string[] {
  return lines.length > LISTED ? [...lines.slice(0, LISTED), `• …and ${lines.length - LISTED} more`] : lines;
}

function enabledLines(enabled: readonly EnabledSkill[], platform: string, admin: boolean): string[] {
  return capped(
    enabled.map(
      (e) =>
        `• \`${e.skill.name}\` — ${short(e.skill.manifest.description)}${admin ? ` _(${sourceText(e.source, platform)})_` : ''}`,
    ),
  );
}

/** The admins' part: what is installed and not enabled here, held back (changed, missing, malformed), and the pins to paste. */
function adminSections(
  statuses: readonly SkillStatus[],
  here: ReadonlySet<string>,
  dir: string,
  malformed: readonly { folder: string; reason: string }[],
  platform: string,
): string[] {
  const disabled: string[] = [];
  const changed: string[] = [];
  const missing: string[] = [];
  for (const s of statuses) {
    for (const { applied, state } of s.pins) {
      if (state === 'changed' && s.skill) {
        const fix =
          applied.source.kind === 'database'
            ? `approve the new content: \`/skills enable ${s.name}\``
            : `set its pin in the configuration file to \`"${s.name}": "${s.skill.digest.pin}"\` and restart`;
        changed.push(
          `• \`${s.name}\` — ${sourceText(applied.source, platform)} as \`${shortPin(applied.pin)}\`, its folder is now \`${shortPin(s.skill.digest.pin)}\`: not loaded. To ${fix}`,
        );
      }
      if (state === 'missing')
        missing.push(
          `• \`${s.name}\` — ${sourceText(applied.source, platform)}, but there is no folder ${s.name} in ${dir}`,
        );
    }
    if (s.skill && !here.has(s.name) && !s.pins.some((p) => p.state === 'changed')) {
      const elsewhere = s.pins
        .filter((p) => p.state === 'enabled')
        .map((p) => (p.applied.source.kind === 'file-channel' ? p.applied.source.channel : 'elsewhere'));
      const where = elsewhere.length > 0 ? ` (enabled in ${elsewhere.join(', ')})` : '';
      disabled.push(
        `• \`${s.name}\`${where} — ${short(s.skill.manifest.description)} · \`/skills enable ${s.name}\` · pin: \`"${s.name}": "${s.skill.digest.pin}"\``,
      );
    }
  }
  const out: string[] = [];
  if (disabled.length > 0)
    out.push(
      `**Not enabled here** (from ${dir}; the pin is what the configuration file's \`skills\` takes)`,
      ...capped(disabled),
    );
  if (changed.length > 0) out.push('**Changed since approved — held back**', ...capped(changed));
  if (missing.length > 0) out.push('**Pinned but not found**', ...capped(missing));
  if (malformed.length > 0)
    out.push('**Malformed — skipped**', ...capped(malformed.map((m) => `• \`${m.folder}\` — ${m.reason}`)));
  return out;
}

async function list(cmd: InboundCommand, deps: SkillsCommandDeps, admin: boolean): Promise<CommandReply> {
  const channel: ChannelRef = cmd.conversation ?? cmd.channel;
  const where = cmd.direct ? 'in this conversation' : 'in this channel';
  const head = (n: number) =>
    n > 0 ? `**Skills enabled ${where}** — I open one when a request matches it:` : `No skills are enabled ${where}.`;
  if (!admin) {
    const enabled = await deps.library.enabledFor(channel);
    return { text: [head(enabled.length), ...enabledLines(enabled, cmd.channel.platform, false)].join('\n') };
  }
  // Admins see the folders as they are now: the report reads SKILLS_DIR again.
  const report = await deps.library.report();
  const enabled = await deps.library.enabledFor(channel);
  const here = new Set(enabled.map((e) => e.skill.name));
  const found = report.scan.found
    ? []
    : [`SKILLS_DIR (${report.scan.dir}) does not exist: put skill folders there (each with a SKILL.md).`];
  const sections = adminSections(report.statuses, here, report.scan.dir, report.scan.malformed, cmd.channel.platform);
  return {
    text: [head(enabled.length), ...enabledLines(enabled, cmd.channel.platform, true), ...found, ...sections].join(
      '\n',
    ),
    homeChanged: true,
  };
}

async function enable(cmd: InboundCommand, deps: SkillsCommandDeps, name: string): Promise<CommandReply> {
  const done = await deps.library.enable(name, `${cmd.channel.platform}:${cmd.userId}`);
  if (done.ok) {
    const pin = `\`${done.skill.digest.pin}\``;
    if (done.already)
      return { text: `**${name}** is already enabled with its folder as it is now (pinned to ${pin}).` };
    return {
      text: `Enabled **${name}** in every channel, pinned to ${pin}: I offer it from the next request on. If its folder changes, it is held back until an admin enables it again.`,
      homeChanged: true,
    };
  }
  switch (done.reason) {
    case 'not_found':
      return { text: `There is no skill named \`${name}\` in ${done.dir}. \`/skills\` lists what is there.` };
    case 'malformed':
      return { text: `\`${name}\` cannot be enabled: ${done.why}. Fix its SKILL.md, then enable it again.` };
    case 'file_pinned': {
      const now = done.now
        ? ` To approve its folder as it is now, set its pin there to \`"${name}": "${done.now}"\` and restart Errand.`
        : '';
      return {
        text: `\`${name}\` is pinned in the configuration file (${done.pinned.map((p) => `\`${shortPin(p)}\``).join(', ')}), which alone decides it.${now}`,
      };
    }
  }
}

async function disable(deps: SkillsCommandDeps, name: string): Promise<CommandReply> {
  const done = await deps.library.disable(name);
  if (done.ok)
    return { text: `Disabled **${name}**: I no longer offer it, from the next request on.`, homeChanged: true };
  return done.reason === 'file_pinned'
    ? {
        text: `\`${name}\` is pinned in the configuration file: remove it from \`skills\` there (and restart Errand) to disable it.`,
      }
    : {
        text: `\`${name}\` is not enabled with \`/skills enable\`, so there is nothing to disable. \`/skills\` lists what is enabled.`,
      };
}

/** `/skills`: the skills enabled here (everyone); admins also see the others, and `/skills enable|disable <name>`. */
export async function handleSkillsCommand(
  cmd: InboundCommand,
  deps: SkillsCommandDeps | undefined,
): Promise<CommandReply> {
  if (!deps) return { text: 'Skills are not available in this installation.' };
  const person: Person = {
    platform: cmd.channel.platform,
    userId: cmd.userId,
    ...(cmd.roles ? { roles: cmd.roles } : {}),
  };
  const admin = deps.mayManage(person);
  const [verb, name, ...rest] = cmd.args.split(/\s+/).filter((w) => w !== '');
  if (verb === undefined) return list(cmd, deps, admin);
  const action = verb.toLowerCase();
  if ((action !== 'enable' && action !== 'disable') || name === undefined || rest.length > 0) return { text: USAGE };
  if (!admin)
    return {
      text: 'Only Errand admins may enable or disable skills (`access.admins` in the configuration file). `/skills` lists those enabled here.',
    };
  // Skill names are lowercase by the format's rules: `/skills enable CSV-Summary` means csv-summary.
  return action === 'enable' ? enable(cmd, deps, name.toLowerCase()) : disable(deps, name.toLowerCase());
}
