import type { RunPosts } from '../agent/agent-types.js';
import type { ChannelRef } from '../chat/conversation-ref.js';
import type { ThreadOpener } from '../chat/thread-opener.js';
import type { ConversationStore } from '../conversations/conversation-store.js';
import { AdapterError } from '../errors.js';
import type { ScheduleLauncher } from '../schedules/schedule-launcher.js';
import type { StoredPrincipal } from '../runs/run-store.js';
import type { TaskService } from '../tasks/task-service.js';
import { titleFrom } from './goal-message.js';
import type { RunCoordinator } from './run-coordinator.js';

/**
 * How a firing schedule becomes work: a task in an existing conversation (it runs when that
 * conversation is idle), or a new top-level post in a channel whose thread becomes the conversation.
 * The post goes through the outbox like every other (as a note of the channel's own conversation), and
 * the thread is opened on it once it is delivered. Errors are thrown so the scheduler records them as
 * the schedule's fail_reason.
 */
export function createScheduleLauncher(deps: {
  /** Whether the platform is connected: a schedule of another fails at once, with nothing recorded. */
  platforms: { has(platform: string): boolean };
  posts: Pick<RunPosts, 'record' | 'delivered'>;
  threads: ThreadOpener;
  conversations: ConversationStore;
  tasks: TaskService;
  coordinator: RunCoordinator;
  /** Whom the schedule's runs act for (its creator); null only for schedules older than principals. */
  principalOf(scheduleId: number): Promise<StoredPrincipal | null>;
  /**
   * Aborted when Errand stops: a fire waiting for its post (a platform failing for a moment) then fails
   * instead of holding the shutdown; the post itself stays recorded and is delivered after the next start.
   */
  stopping?: AbortSignal;
}): ScheduleLauncher {
  const queue = async (conversationId: string, prompt: string, scheduleId: number) => {
    // The schedule's creator is the task's principal: they decide its approvals, pay for it, may stop it.
    const principal = await deps.principalOf(scheduleId);
    const added = await deps.tasks.add({
      conversationId,
      title: `⏰ ${titleFrom(prompt)}`,
      description: prompt,
      createdBy: 'schedule',
      scheduleId,
      requestedBy: principal?.userId ?? null,
      requesterRoles: principal?.roles ?? null,
      fromSchedule: true,
    });
    if (!added.ok) throw new Error(added.error);
    await deps.coordinator.pump(conversationId);
  };
  return {
    async queueInConversation(conversationId, prompt, scheduleId) {
      if (!(await deps.conversations.get(conversationId))) throw new Error(`the conversation ${conversationId} no longer exists`);
      await queue(conversationId, prompt, scheduleId);
    },
    async startInChannel(channel: ChannelRef, prompt, scheduleId) {
      if (!deps.platforms.has(channel.platform)) throw new AdapterError(`no ${channel.platform} adapter is connected`);
      const inChannel = await deps.conversations.ensure({ ...channel, thread: null });
      const ticket = await deps.posts.record(inChannel, null, { purpose: 'note', text: `⏰ **Scheduled prompt #${scheduleId}:** ${prompt}` });
      // A channel that is gone rejects here (the schedule records it); a post that failed otherwise resolves null.
      const posted = await deps.posts.delivered(ticket, deps.stopping);
      if (posted === null) throw new AdapterError(`the scheduled prompt could not be posted in ${channel.channel}`);
      const thread = await deps.threads.openThread(channel, posted, `⏰ ${titleFrom(prompt)}`.slice(0, 100));
      await queue(await deps.conversations.ensure(thread), prompt, scheduleId);
    },
  };
}
