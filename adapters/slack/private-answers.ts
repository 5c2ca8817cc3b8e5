import type { App } from '@slack/bolt';
import { z } from 'zod';
import type { InboundSink } from '../../src/chat/inbound.js';
import type { PrivateAnswerCapability } from '../../src/chat/adapter-capabilities.js';
import { parsePrivateAnswerActionId } from '../../src/chat/private-answers.js';
import type { Logger } from '../../src/logger.js';
import { replyBody } from './home-views.js';
import { toMessageBodies } from './message-bodies.js';
import type { OutboundQueue } from './outbound-queue.js';
import type { SlackCall } from './slack-call.js';
import { okSchema, locate } from './slack-outbound.js';
import { isDmChannel, SLACK_PLATFORM } from './slack-thread-id.js';
import { neutraliseBody } from './special-mentions.js';

/**
 * Answers built on one person's private material, on Slack: others read every conversation but a DM with the bot
 * (`D…`; a group DM is `mpim`, read by several), and the answer is shown to its owner as an ephemeral message in the
 * conversation, in as many pieces as it takes, its Share in thread / Keep private buttons on the last.
 */
export function createSlackPrivateAnswers(deps: {
  readonly api: SlackCall;
  readonly queue: OutboundQueue;
}): PrivateAnswerCapability {
  return {
    othersRead: (conversation) => !isDmChannel(conversation.channel),
    async showPrivately(conversation, userId, message) {
      const loc = locate(conversation);
      const bodies = toMessageBodies(message);
      await deps.queue.enqueue(loc.channelId, async (send) => {
        for (const body of bodies) {
          await send(() =>
            deps.api(
              'chat.postEphemeral',
              {
                channel: loc.channelId,
                user: userId,
                ...(loc.threadTs ? { thread_ts: loc.threadTs } : {}),
                ...neutraliseBody(body),
              },
              okSchema,
            ),
          );
        }
      });
      return { kind: 'shown' };
    },
  };
}

const clickSchema = z.object({
  user: z.object({ id: z.string().min(1) }),
  actions: z.array(z.object({ action_id: z.string() })).min(1),
});

/** Wires the Share in thread / Keep private buttons: acknowledged at once, decided by the core, answered ephemerally to the clicker. */
export function registerPrivateAnswerActions(
  app: App,
  deps: { readonly sink: () => InboundSink | null; readonly logger: Logger },
): void {
  app.action({ action_id: /^errand:private:(share|keep):\d+$/ }, async ({ ack, body, respond }) => {
    await ack();
    const sink = deps.sink();
    const parsed = clickSchema.safeParse(body);
    const ref = parsed.success ? parsePrivateAnswerActionId(parsed.data.actions[0]!.action_id) : null;
    if (!sink || !parsed.success || !ref) {
      deps.logger.warn({ type: body.type }, 'ignoring a Share / Keep private click Errand cannot read');
      return;
    }
    try {
      const reply = await sink.onAction({
        kind: 'private_answer',
        choice: ref.choice,
        answerId: ref.answerId,
        platform: SLACK_PLATFORM,
        userId: parsed.data.user.id,
      });
      if (reply) await respond({ response_type: 'ephemeral', replace_original: false, ...replyBody(reply) });
    } catch (err) {
      deps.logger.error({ err }, 'handling a Share / Keep private click failed');
    }
  });
}
