import type { ChatAdapter } from '../chat/chat-adapter.js';
import type { ChannelRef } from '../chat/conversation-ref.js';
import type { CommandReply } from '../chat/inbound.js';
import type { ConversationStore } from '../conversations/conversation-store.js';
import type { RunStore } from '../runs/run-store.js';
import type { TaskService } from '../tasks/task-service.js';
import type { UsageCommandDeps } from './usage-command.js';

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
  stopConversation(conversationId: string, all: boolean): StopResult;
}

/** What the platform-neutral command handlers need. */
export interface CommandDeps {
  conversations: ConversationStore;
  tasks: TaskService;
  runs: RunStore;
  coordinator: RunControl;
  adapters: ReadonlyMap<string, ChatAdapter>;
  /** `/schedules …`, when scheduling is wired. */
  schedules?: (args: string, channel: ChannelRef) => Promise<CommandReply>;
  /** Help lines about schedules, when scheduling is wired. */
  schedulesHelp?: string;
  /** `/usage`, when usage is recorded. */
  usage?: UsageCommandDeps;
}
