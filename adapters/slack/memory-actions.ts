import type { App } from '@slack/bolt';
import { z } from 'zod';
import { parseMemoryForgetActionId } from '../../src/chat/action-id.js';
import type { InboundCommand, InboundSink } from '../../src/chat/inbound.js';
import type { Logger } from '../../src/logger.js';
import { replyBody } from './home-views.js';
import { isDmChannel, toChannelRef } from './slack-thread-id.js';

const forgetClickSchema = z.object({
  user: z.object({ id: z.string().min(1) }),
  team: z
    .object({ id: z.string().min(1) })
    .nullable()
    .optional(),
  channel: z.object({ id: z.string().min(1) }).optional(),
  container: z.object({ channel_id: z.string().optional() }).optional(),
  actions: z.array(z.object({ action_id: z.string() })).min(1),
});

/** A Forget click on `/memory`'s reply as the command it stands for: `/memory forget <id>` from the clicker, in that channel. */
export function forgetClickCommand(raw: unknown, teamFallback: string | null): InboundCommand | null {
  const parsed = forgetClickSchema.safeParse(raw);
  if (!parsed.success) return null;
  const body = parsed.data;
  const memoryId = parseMemoryForgetActionId(body.actions[0]!.action_id);
  const teamId = body.team?.id ?? teamFallback;
  const channelId = body.channel?.id ?? body.container?.channel_id;
  if (memoryId === null || !teamId || !channelId) return null;
  const channel = toChannelRef(teamId, channelId);
  if (!channel) return null;
  return {
    name: 'memory',
    args: `forget ${memoryId}`,
    channel,
    conversation: null,
    userId: body.user.id,
    ...(isDmChannel(channelId) ? { direct: true } : {}),
  };
}

/** Wires `/memory`'s Forget buttons: acknowledged at once, run as the command, answered ephemerally to the clicker. */
export function registerMemoryActions(
  app: App,
  deps: { readonly sink: () => InboundSink | null; readonly logger: Logger },
): void {
  app.action({ action_id: /^errand:memory:forget:\d+$/ }, async ({ ack, body, respond, context }) => {
    await ack();
    const sink = deps.sink();
    const command = forgetClickCommand(body, context.teamId ?? null);
    if (!sink || !command) {
      deps.logger.warn({ type: body.type }, 'ignoring a Forget click Errand cannot read');
      return;
    }
    try {
      const reply = await sink.onCommand(command);
      await respond({ response_type: 'ephemeral', replace_original: false, ...replyBody(reply) });
    } catch (err) {
      deps.logger.error({ err }, 'handling a Forget click failed');
    }
  });
}
