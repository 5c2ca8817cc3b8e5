import type { ChannelRef } from '../chat/conversation-ref.js';

/**
 * What a firing schedule asks of the runtime. The runtime implements it; the scheduler
 * never touches adapters or runs directly.
 */
export interface ScheduleLauncher {
  /** Thread target: queue the prompt as a task in that conversation (it runs when idle). */
  queueInConversation(conversationId: string, prompt: string, scheduleId: number): Promise<void>;
  /** Channel target: post a top-level message, open a thread on it, and run the prompt there. */
  startInChannel(channel: ChannelRef, prompt: string, scheduleId: number): Promise<void>;
}
