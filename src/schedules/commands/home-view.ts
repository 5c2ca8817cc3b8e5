import type { Person } from '../../access/access-policy.js';
import { scheduleActionId, stopActionId } from '../../chat/action-id.js';
import type { ChannelRef } from '../../chat/conversation-ref.js';
import type { HomeConversation, HomeModel, HomeRequest, HomeSchedule } from '../../chat/schedule-form.js';
import type { OpenWorkStore } from '../../conversations/open-work-by-person.js';
import type { RunStore } from '../../run-records/run-store.js';
import type { HomeMemory } from '../../chat/schedule-form.js';
import type { MemoryStore } from '../../memory/memory-store.js';
import { memoryVisibility } from '../../memory/memory-visibility.js';
import type { ScheduleService } from '../schedule-service.js';
import type { StopAuthority } from '../../commands/command-deps.js';
import { formatScheduleLine } from './schedules-command.js';
import type { ScheduleRights } from '../schedule-rights.js';
import { scheduleButtons } from './schedule-buttons.js';

export interface HomeViewDeps {
  openWork: OpenWorkStore;
  runs: Pick<RunStore, 'active'>;
  schedules: ScheduleService;
  rights: ScheduleRights;
  authority: StopAuthority;
  parseConversation: (id: string) => HomeConversation['conversation'] | null;
  /** Long-term memories, for "What Errand remembers about you"; absent: the section is not shown. */
  memories?: Pick<MemoryStore, 'newest'>;
}

/** A screenful: Slack's Home view holds at most 100 blocks. */
const MAX_CONVERSATIONS = 15;
const MAX_SCHEDULES = 20;
const MAX_MEMORIES = 20;

/** "What Errand remembers about you": the person's own `me` memories, newest first (never a channel's or another person's). */
async function homeMemories(request: HomeRequest, store: Pick<MemoryStore, 'newest'>): Promise<HomeMemory[]> {
  const visibility = memoryVisibility(
    { platform: request.platform, userId: request.userId },
    { platform: request.platform, workspace: request.workspace, channel: '-' },
  );
  const rows = await store.newest(visibility, MAX_MEMORIES, 'me');
  return rows.map((m) => ({ id: m.id, text: m.text, createdAt: m.createdAt }));
}

/**
 * What the App Home shows one person: their conversations with work under way or queued (with
 * Stop where they may stop it), and the schedules of the channels they are in where Errand is
 * theirs to use, each with the buttons they may press.
 */
export async function buildHomeModel(request: HomeRequest, deps: HomeViewDeps): Promise<HomeModel> {
  const person: Person =
    request.roles && request.roles.length > 0
      ? { platform: request.platform, userId: request.userId, roles: request.roles }
      : { platform: request.platform, userId: request.userId };
  const conversations: HomeConversation[] = [];
  for (const work of await deps.openWork.byPerson(
    request.platform,
    request.workspace,
    request.userId,
    MAX_CONVERSATIONS,
  )) {
    const conversation = deps.parseConversation(work.conversationId);
    if (!conversation) continue;
    const run = await deps.runs.active(work.conversationId);
    const state = run?.status === 'waiting_user' ? 'waiting' : run || work.inProgress ? 'running' : 'pending';
    const stop =
      run && (await deps.authority.mayStop(work.conversationId, person))
        ? { actionId: stopActionId(run.id), label: 'Stop', style: 'danger' as const }
        : null;
    conversations.push({
      conversation,
      title: work.title,
      state,
      pending: Math.max(0, work.pending - (state === 'pending' ? 1 : 0)),
      stop,
    });
  }
  const memberOf = new Set(request.channels);
  const schedules: HomeSchedule[] = [];
  for (const channelId of request.channels) {
    if (schedules.length >= MAX_SCHEDULES) break;
    const channel: ChannelRef = { platform: request.platform, workspace: request.workspace, channel: channelId };
    for (const row of await deps.schedules.list(channel, 1)) {
      // Listed either way, so people see what runs in their channels; only the buttons need rights.
      const mayManage = deps.rights.refusal(person, { row, place: { memberOf } }) === null;
      schedules.push({
        id: row.id,
        channel,
        text: formatScheduleLine(row, deps.schedules),
        buttons: mayManage ? scheduleButtons(row) : [],
      });
      if (schedules.length >= MAX_SCHEDULES) break;
    }
  }
  // Offered when there is at least one channel the person could pick in the form.
  const somewhere = request.channels.some(
    (c) => deps.rights.refusal(person, { after: { channel: c, target: 'channel' }, place: { memberOf } }) === null,
  );
  const newSchedule = somewhere
    ? { actionId: scheduleActionId('new'), label: 'New schedule', style: 'primary' as const }
    : null;
  return {
    conversations,
    schedules,
    newSchedule,
    ...(deps.memories ? { memories: await homeMemories(request, deps.memories) } : {}),
  };
}
