import type { CommandReply, InboundCommand } from '../chat/inbound.js';
import { NO_CONNECTIONS, type CommandDeps } from './command-deps.js';
import { handleHelpCommand } from './help-command.js';
import { handleMemoryCommand } from '../memory/commands/memory-command.js';
import { handleSkillsCommand } from './skills-command.js';
import { handleStopCommand } from './stop-command.js';
import { handleTasksCommand } from './tasks-command.js';
import { handleUsageCommand } from './usage-command.js';
import { handleAdminCommand } from './admin-command.js';

/** Routes a slash command to its platform-neutral handler. */
export async function handleCommand(cmd: InboundCommand, deps: CommandDeps): Promise<CommandReply> {
  switch (cmd.name) {
    case 'tasks':
      return handleTasksCommand(cmd, deps);
    case 'stop':
      return handleStopCommand(cmd, deps);
    case 'usage':
      return handleUsageCommand(cmd, deps.usage);
    case 'connections':
      return deps.connectionsCommand ? deps.connectionsCommand(cmd) : { text: NO_CONNECTIONS };
    case 'memory':
      return handleMemoryCommand(cmd, deps.memory);
    case 'help':
      return handleHelpCommand({
        platform: cmd.channel.platform,
        ...(deps.schedulesHelp ? { schedulesHelp: deps.schedulesHelp } : {}),
      });
    case 'admin':
      return handleAdminCommand(cmd, deps.admin);
    case 'schedules':
      return deps.schedules ? deps.schedules(cmd) : { text: 'Schedules are not available in this installation.' };
    case 'skills':
      return handleSkillsCommand(cmd, deps.skills);
  }
}
