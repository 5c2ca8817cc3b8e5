import type { App } from '@slack/bolt';
import { z } from 'zod';
import { parseScheduleActionId } from '../../src/chat/action-id.js';
import { DISCONNECT_ACTION_PATTERN, parseDisconnectActionId } from '../../src/chat/home-connections.js';
import type { CommandReply, InboundSink } from '../../src/chat/inbound.js';
import type { ScheduleFormRequest } from '../../src/chat/schedule-form.js';
import type { SurfaceSink } from '../../src/chat/surface-sink.js';
import type { Logger } from '../../src/logger.js';
import type { EventRoutes } from './event-routes.js';
import type { SlackCall } from './slack-call.js';
import { homeView, readScheduleModal, replyBody, scheduleModal, SCHEDULE_FORM_CALLBACK } from './home-views.js';
import { isDmChannel, SLACK_PLATFORM, toChannelRef } from './slack-thread-id.js';

export interface ScheduleUiDeps {
  readonly sink: () => InboundSink | null;
  /** The App Home and the form's way in; null: no Home is published and the form refuses. */
  readonly surfaces: () => SurfaceSink | null;
  readonly logger: Logger;
  readonly call: SlackCall;
  /** How long a person's channel list is reused (default 60 s): the Home opens often, channels change rarely. */
  readonly membershipTtlMs?: number;
  readonly now?: () => number;
}

/** What the slash commands need from here: opening the form from a command's trigger. */
export interface ScheduleUi {
  openForm(triggerId: string, form: ScheduleFormRequest): Promise<void>;
}

const okSchema = z.object({ ok: z.literal(true) });
const channelsPage = z.object({
  channels: z.array(z.object({ id: z.string() })),
  response_metadata: z.object({ next_cursor: z.string().optional() }).optional(),
});
const permalinkSchema = z.object({ permalink: z.string() });
const clickSchema = z.object({
  user: z.object({ id: z.string().min(1) }),
  team: z
    .object({ id: z.string().min(1) })
    .nullable()
    .optional(),
  channel: z.object({ id: z.string().min(1) }).optional(),
  trigger_id: z.string().optional(),
  view: z.object({ type: z.string() }).optional(),
  actions: z.array(z.object({ action_id: z.string() })).min(1),
});
const MAX_PAGES = 5;

/**
 * The App Home and the schedule modal on Slack: `app_home_opened` publishes the person's view,
 * schedule buttons (on the Home or under `/schedules`) go to the core, Edit/New open the modal,
 * and its submission answers with field errors, an updated modal to confirm, or closes it and
 * refreshes the Home. Stop buttons on the Home stop through the same core path as everywhere.
 */
export function registerScheduleUi(app: App, routes: EventRoutes, deps: ScheduleUiDeps): ScheduleUi {
  const ttl = deps.membershipTtlMs ?? 60_000;
  const now = deps.now ?? Date.now;
  const memberships = new Map<string, { at: number; channels: string[] }>();

  async function channelsOf(userId: string): Promise<string[]> {
    const cached = memberships.get(userId);
    if (cached && now() - cached.at < ttl) return cached.channels;
    const channels: string[] = [];
    let cursor = '';
    for (let page = 0; page < MAX_PAGES; page++) {
      const r = await deps.call(
        'users.conversations',
        {
          user: userId,
          types: 'public_channel,private_channel',
          exclude_archived: true,
          limit: 200,
          ...(cursor ? { cursor } : {}),
        },
        channelsPage,
      );
      channels.push(...r.channels.map((c) => c.id));
      cursor = r.response_metadata?.next_cursor ?? '';
      if (!cursor) break;
    }
    if (memberships.size > 5000) memberships.clear();
    memberships.set(userId, { at: now(), channels });
    return channels;
  }

  async function publishHome(userId: string, teamId: string, note: string | null): Promise<void> {
    const surfaces = deps.surfaces();
    if (!surfaces) return;
    const channels = await channelsOf(userId);
    const model = await surfaces.onHomeOpened({ platform: SLACK_PLATFORM, workspace: teamId, userId, channels });
    const links = new Map<string, string>();
    for (const c of model.conversations) {
      if (!c.conversation.thread) continue;
      const link = await deps
        .call(
          'chat.getPermalink',
          { channel: c.conversation.channel, message_ts: c.conversation.thread },
          permalinkSchema,
        )
        .catch(() => null);
      if (link) links.set(`${c.conversation.channel}:${c.conversation.thread}`, link.permalink);
    }
    await deps.call('views.publish', { user_id: userId, view: homeView(model, links, note) }, okSchema);
  }

  const openForm = async (triggerId: string, form: ScheduleFormRequest) => {
    await deps.call('views.open', { trigger_id: triggerId, view: scheduleModal(form) }, okSchema);
  };

  const refresh = (userId: string, teamId: string, note: string | null) =>
    publishHome(userId, teamId, note).catch((err: unknown) =>
      deps.logger.warn({ err, userId }, 'publishing the App Home failed'),
    );

  routes.on('app_home_opened', async ({ event, context }) => {
    if (event.tab === 'messages') return;
    const teamId = context.teamId;
    if (teamId) await refresh(event.user, teamId, null);
  });

  app.action(/^errand:schedule:/, async ({ ack, body, respond, context }) => {
    await ack();
    const parsed = clickSchema.safeParse(body);
    const ref = parsed.success ? parseScheduleActionId(parsed.data.actions[0]!.action_id) : null;
    const teamId = (parsed.success ? parsed.data.team?.id : undefined) ?? context.teamId;
    const sink = deps.sink();
    if (!parsed.success || !ref || !teamId || !sink) return;
    const click = parsed.data;
    const userId = click.user.id;
    const channelId = click.channel?.id;
    const fromHome = click.view?.type === 'home';
    let reply: CommandReply | null;
    try {
      const memberOf = new Set(await channelsOf(userId));
      reply = await sink.onAction({
        kind: 'schedule',
        ...ref,
        platform: SLACK_PLATFORM,
        workspace: teamId,
        userId,
        channel: channelId ? toChannelRef(teamId, channelId) : null,
        memberOf,
        ...(channelId && isDmChannel(channelId) ? { direct: true } : {}),
      });
      if (reply?.form && click.trigger_id) {
        await openForm(click.trigger_id, reply.form);
        return;
      }
    } catch (err) {
      deps.logger.error({ err, op: ref.op }, 'handling a schedule button failed');
      reply = { text: 'Sorry, that failed. The error was logged; try again in a moment.' };
    }
    if (fromHome) await refresh(userId, teamId, reply?.text ?? null);
    else if (reply)
      await respond({ response_type: 'ephemeral', replace_original: false, ...replyBody(reply) }).catch(
        (err: unknown) => deps.logger.warn({ err }, 'answering a schedule button failed'),
      );
  });

  // A Stop on the Home has no conversation around it: the core takes the run's own.
  app.action({ block_id: /^errand-home-stop/, action_id: /^errand:stop:/ }, async ({ ack, body, context }) => {
    await ack();
    const parsed = clickSchema.safeParse(body);
    const teamId = (parsed.success ? parsed.data.team?.id : undefined) ?? context.teamId;
    const sink = deps.sink();
    if (!parsed.success || !teamId || !sink) return;
    const runId = parsed.data.actions[0]!.action_id.slice('errand:stop:'.length);
    const reply = await sink
      .onAction({ kind: 'stop', runId, userId: parsed.data.user.id, conversation: null })
      .catch((err: unknown) => {
        deps.logger.error({ err, runId }, 'stopping from the App Home failed');
        return { text: 'Sorry, that failed. The error was logged; try again in a moment.' };
      });
    await refresh(parsed.data.user.id, teamId, reply?.text ?? 'Stopped.');
  });

  // A Disconnect on the Home: the person forgets their own tokens for the server; the Home is published again.
  app.action(
    { block_id: /^errand-home-connection/, action_id: DISCONNECT_ACTION_PATTERN },
    async ({ ack, body, context }) => {
      await ack();
      const parsed = clickSchema.safeParse(body);
      const teamId = (parsed.success ? parsed.data.team?.id : undefined) ?? context.teamId;
      const surfaces = deps.surfaces();
      const server = parsed.success ? parseDisconnectActionId(parsed.data.actions[0]!.action_id) : null;
      if (!parsed.success || !teamId || !surfaces || server === null) return;
      const userId = parsed.data.user.id;
      const text = await surfaces
        .onDisconnect({ platform: SLACK_PLATFORM, workspace: teamId, userId, server })
        .catch((err: unknown) => {
          deps.logger.error({ err, server }, 'disconnecting from the App Home failed');
          return 'Sorry, that failed. The error was logged; try again in a moment.';
        });
      await refresh(userId, teamId, text);
    },
  );

  app.view(SCHEDULE_FORM_CALLBACK, async ({ ack, body, view, context }) => {
    const surfaces = deps.surfaces();
    const read = readScheduleModal(view);
    const teamId = body.team?.id ?? context.teamId;
    if (!surfaces || !read || !teamId) {
      await ack({
        response_action: 'errors',
        errors: { prompt: 'Errand could not read this form. Close it and try again.' },
      });
      return;
    }
    const userId = body.user.id;
    const memberOf = new Set(await channelsOf(userId).catch(() => []));
    const result = await surfaces.onScheduleForm({
      platform: SLACK_PLATFORM,
      workspace: teamId,
      userId,
      scheduleId: read.scheduleId,
      values: read.values,
      memberOf,
    });
    if (result.kind === 'errors') {
      const errors = Object.fromEntries(
        Object.entries(result.errors).map(([field, message]) => [field, message.slice(0, 2000)]),
      );
      await ack({ response_action: 'errors', errors });
      return;
    }
    if (result.kind === 'confirm') {
      await ack({ response_action: 'update', view: scheduleModal(result.form) as never });
      return;
    }
    await ack();
    memberships.delete(userId);
    await refresh(userId, teamId, result.text);
  });

  return { openForm };
}
