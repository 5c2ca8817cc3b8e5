import {
  ApplicationIntegrationType,
  InteractionContextType,
  Routes,
  SlashCommandBuilder,
  type ChatInputCommandInteraction,
  type REST,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord.js';
import { isCommandName, type CommandName } from '../../src/chat/inbound.js';

const SCHEDULE_ACTIONS = ['pause', 'resume', 'delete'] as const;

const base = (name: CommandName, description: string) =>
  new SlashCommandBuilder()
    .setName(name)
    .setDescription(description)
    .setIntegrationTypes(ApplicationIntegrationType.GuildInstall)
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM);

/** The slash commands Errand registers: the same ones every adapter wires. */
export function commandDefinitions(): RESTPostAPIChatInputApplicationCommandsJSONBody[] {
  const schedules = base('schedules', 'List or manage scheduled prompts in this channel').addSubcommand((s) =>
    s.setName('list').setDescription('List the schedules of this channel, with buttons'),
  );
  for (const action of SCHEDULE_ACTIONS) {
    schedules.addSubcommand((s) =>
      s
        .setName(action)
        .setDescription(`${action[0]?.toUpperCase()}${action.slice(1)} a schedule`)
        .addStringOption((o) =>
          o.setName('id').setDescription('The schedule id (see /schedules list)').setRequired(true).setMaxLength(40),
        ),
    );
  }
  schedules.addSubcommand((s) => s.setName('add').setDescription('Open a form for a new schedule in this channel'));
  return [
    base('tasks', "Show what I'm working on and the to-do list here").toJSON(),
    base('stop', 'Stop the current run (or a task by id, or all)')
      .addStringOption((o) =>
        o.setName('target').setDescription('A task id, or "all" to also cancel the pending tasks').setMaxLength(40),
      )
      .toJSON(),
    schedules.toJSON(),
    base('usage', "Your tokens and their cost today and over 30 days, and the limits (admins: everyone's)").toJSON(),
    base('connections', 'The MCP servers you signed in to; or disconnect one')
      .addStringOption((o) =>
        o.setName('disconnect').setDescription('A server to disconnect (forget your tokens for it)').setMaxLength(100),
      )
      .toJSON(),
    base('memory', 'What I remember about you and in this channel; or forget one')
      .addIntegerOption((o) =>
        o.setName('forget').setDescription('The id of a memory to forget (see /memory)').setMinValue(1),
      )
      .toJSON(),
    base('help', 'How to use Errand').toJSON(),
    base('skills', 'The skills enabled here (admins: all of them; or enable or disable one)')
      .addStringOption((o) =>
        o
          .setName('enable')
          .setDescription('Admins: a skill to enable, pinned to its folder as it is now')
          .setMaxLength(64),
      )
      .addStringOption((o) => o.setName('disable').setDescription('Admins: a skill to disable').setMaxLength(64))
      .toJSON(),
    base('admin', 'Admins: a private sign-in link to the web console').toJSON(),
  ];
}

/**
 * Registers the commands with one bulk overwrite (PUT), so removed commands disappear and a
 * restart never duplicates them. Per guild when a guild id is given: those are available at once,
 * while global commands can take a while to reach every client.
 */
export async function registerCommands(rest: REST, applicationId: string, guildId: string | undefined): Promise<void> {
  const route = guildId
    ? Routes.applicationGuildCommands(applicationId, guildId)
    : Routes.applicationCommands(applicationId);
  await rest.put(route, { body: commandDefinitions() });
}

/** The platform-neutral command an interaction stands for (`args` as typed after a Slack command); null if not ours. */
export function commandFromInteraction(
  interaction: ChatInputCommandInteraction,
): { name: CommandName; args: string } | null {
  const name = interaction.commandName;
  if (!isCommandName(name)) return null;
  if (name === 'stop') return { name, args: (interaction.options.getString('target') ?? '').trim() };
  if (name === 'schedules') {
    const sub = interaction.options.getSubcommand(false) ?? 'list';
    if (sub === 'list') return { name, args: '' };
    if (sub === 'add') return { name, args: 'add' };
    return { name, args: `${sub} ${(interaction.options.getString('id') ?? '').trim()}`.trim() };
  }
  if (name === 'connections') {
    const server = (interaction.options.getString('disconnect') ?? '').trim();
    return { name, args: server ? `disconnect ${server}` : '' };
  }
  if (name === 'memory') {
    const id = interaction.options.getInteger('forget');
    return { name, args: id !== null ? `forget ${id}` : '' };
  }
  if (name === 'skills') {
    const enable = (interaction.options.getString('enable') ?? '').trim();
    const disable = (interaction.options.getString('disable') ?? '').trim();
    return {
      name,
      args: [enable ? `enable ${enable}` : '', disable ? `disable ${disable}` : ''].filter((a) => a !== '').join(' '),
    };
  }
  return { name, args: '' };
}
