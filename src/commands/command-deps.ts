import type { CommandReply, InboundCommand } from '../chat/inbound.js';
import type { ConversationStore } from '../conversations/conversation-store.js';
import type { RunStore } from '../run-records/run-store.js';
import type { TaskService } from '../tasks/task-service.js';
import type { MemoryCommandDeps } from '../memory/commands/memory-command.js';
import type { SkillsCommandDeps } from './skills-command.js';
import type { UsageCommandDeps } from './usage-command.js';
import type { AdminCommandDeps } from './admin-command.js';

/** One connection as `/connections` shows it: never a token. */
export interface ConnectionLine {
  readonly server: string;
  readonly account: string | null;
  readonly scopes: readonly string[];
  /** When the person connected (epoch ms). */
  readonly since: number;
}

/**
 * What `/connections` needs of per-person OAuth (DESIGN.md "Signing in to MCP servers"). The principal is
 * `platform:userId`: the command acts for whoever typed it, on their own connections only.
 */
export interface ConnectionsCommandDeps {
  /** The `auth: "oauth"` servers; none: the command says sign-in is not used here. */
  servers(): readonly string[];
  list(principal: string): Promise<readonly ConnectionLine[]>;
  /** Forgets the person's tokens for the server and closes their session to it; false when there were none. */
  disconnect(principal: string, server: string): Promise<boolean>;
}

/** What `/connections` says where no MCP server asks people to sign in (or sign-in is not wired). */
export const NO_CONNECTIONS = 'No MCP server here asks people to sign in, so there are no connections to show.';

/** What stopping a conversation did. */
export interface StopResult {
  /** The task of the run that was stopped, if a run was active. */
  stoppedTaskId: number | null;
  stoppedRun: boolean;
  cancelledPending: number;
}

/** The part of the run coordinator commands use: commands never reach into the runtime itself. */
export interface RunControl {
  /** Stops the conversation's active run (and with `all` its pending tasks). Takes effect at once. */
  stopConversation(conversationId: string, all: boolean): Promise<StopResult>;
}

/** Someone using a command, as access rules name them. */
export interface CommandPerson {
  readonly platform: string;
  readonly userId: string;
  readonly roles?: readonly string[];
}

/** Who may stop what. */
export interface StopAuthority {
  /** The requester of the conversation's active run, or an admin. */
  mayStop(conversationId: string, person: CommandPerson): Promise<boolean>;
  /** The person who asked for this task, or an admin. */
  mayStopTask(requestedBy: string | null, person: CommandPerson): boolean;
  /** `/stop all`: may stop the run and cancel every queued to-do of the conversation. */
  mayStopAll(conversationId: string, person: CommandPerson): Promise<boolean>;
}

/** What the platform-neutral command handlers need. */
export interface CommandDeps {
  conversations: ConversationStore;
  tasks: TaskService;
  runs: RunStore;
  coordinator: RunControl;
  /** Posts a note in a conversation through the outbox (recorded, delivered once, in order). */
  note(conversationId: string, text: string): void;
  /** `/schedules …`, when scheduling is wired. */
  schedules?: (command: InboundCommand) => Promise<CommandReply>;
  /** Whose work it is, under the access rules (default: anyone may stop anything, as without rules). */
  authority?: StopAuthority;
  /** Help lines about schedules, when scheduling is wired. */
  schedulesHelp?: string;
  /** `/usage`, when usage is recorded. */
  usage?: UsageCommandDeps;
  /** `/connections`, when some MCP server uses per-person OAuth. */
  connections?: ConnectionsCommandDeps;
  /** `/connections` itself, plugged in by the sign-in feature over `connections`; absent: NO_CONNECTIONS. */
  connectionsCommand?: (command: InboundCommand) => Promise<CommandReply>;
  /** `/memory`: what Errand remembers about the person and in the channel. */
  memory?: MemoryCommandDeps;
  /** `/skills`: the skills enabled here; admins enable and disable them. */
  skills?: SkillsCommandDeps;
  /** `/admin`: a sign-in link to the web console, for admins. */
  admin?: AdminCommandDeps;
}
