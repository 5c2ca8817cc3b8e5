import type { ChatAdapter } from '../chat/chat-adapter.js';
import type { ChannelRef } from '../chat/conversation-ref.js';
import type { CommandReply } from '../chat/inbound.js';
import type { ConversationStore } from '../conversations/conversation-store.js';
import type { RunStore } from '../runs/run-store.js';
import type { RunCoordinator } from '../runtime/run-coordinator.js';
import type { TaskService } from '../tasks/task-service.js';

/** What the platform-neutral command handlers need. */
export interface CommandDeps {
  conversations: ConversationStore;
  tasks: TaskService;
  runs: RunStore;
  coordinator: RunCoordinator;
  adapters: ReadonlyMap<string, ChatAdapter>;
  /** `/schedules …`, when scheduling is wired. */
  schedules?: (args: string, channel: ChannelRef) => Promise<CommandReply>;
  /** Help lines about schedules, when scheduling is wired. */
  schedulesHelp?: string;
}
