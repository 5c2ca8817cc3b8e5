import type { App } from '@slack/bolt';
import { z } from 'zod';
import { parseActionId } from '../../src/chat/action-id.js';
import type { InboundAction, InboundSink } from '../../src/chat/inbound.js';
import type { Logger } from '../../src/logger.js';
import { replyBody } from './home-views.js';
import type { SlackMessageBody } from './message-bodies.js';
import { isDmChannel, toConversationRef } from './slack-thread-id.js';

const actionBodySchema = z.object({
  type: z.literal('block_actions'),
  user: z.object({ id: z.string().min(1) }),
  team: z
    .object({ id: z.string().min(1) })
    .nullable()
    .optional(),
  channel: z.object({ id: z.string().min(1) }).optional(),
  container: z
    .object({
      channel_id: z.string().optional(),
      message_ts: z.string().optional(),
      thread_ts: z.string().optional(),
      is_ephemeral: z.boolean().optional(),
    })
    .optional(),
  message: z.object({ ts: z.string(), thread_ts: z.string().optional(), text: z.string().optional() }).optional(),
  trigger_id: z.string().optional(),
  actions: z
    .array(
      z.object({
        action_id: z.string(),
        value: z.string().optional(),
        text: z.object({ text: z.string() }).optional(),
        action_ts: z.string().optional(),
      }),
    )
    .min(1),
});

export type SlackActionBody = z.infer<typeof actionBodySchema>;

/** A click accepted as the answer to a question: the adapter replaces the buttons with who chose what. */
export interface AnsweredQuestion {
  readonly channelId: string;
  readonly messageTs: string;
  readonly questionText: string;
  readonly userId: string;
  readonly answer: string;
  /**
   * The question was shown ephemerally (a private run's, to its person alone): Slack cannot update such a message
   * through the Web API, so it is replaced through the click's response URL (`replace_original`).
   */
  readonly replaceEphemeral?: (body: SlackMessageBody) => Promise<void>;
}

/**
 * Decodes a Block Kit click into an InboundAction: the action id says stop or answer and which
 * run; the answer text is the option's label, carried in full in the button's value. The
 * conversation is where the clicked message sits. Null for clicks that are not Errand's.
 */
export function toInboundAction(raw: unknown, teamFallback: string | null): InboundAction | null {
  const parsed = actionBodySchema.safeParse(raw);
  if (!parsed.success) return null;
  const body = parsed.data;
  const action = body.actions[0]!;
  const ref = parseActionId(action.action_id);
  const teamId = body.team?.id ?? teamFallback;
  const channelId = body.channel?.id ?? body.container?.channel_id;
  const messageTs = body.message?.ts ?? body.container?.message_ts;
  if (!ref || !teamId || !channelId || !messageTs) return null;
  const threadTs = body.message?.thread_ts ?? body.container?.thread_ts;
  const conversation = toConversationRef({
    teamId,
    channelId,
    threadTs: threadTs && threadTs !== messageTs ? threadTs : null,
  });
  if (!conversation) return null;
  const userId = body.user.id;
  const direct = isDmChannel(channelId) ? { direct: true } : {};
  if (ref.kind === 'stop') return { kind: 'stop', runId: ref.runId, userId, conversation, ...direct };
  const answer = action.value ?? action.text?.text ?? '';
  const eventId = `${channelId}/${messageTs}/${action.action_ts ?? body.trigger_id ?? userId}`;
  return {
    kind: 'answer',
    runId: ref.runId,
    questionId: ref.questionId,
    answer,
    userId,
    conversation,
    eventId,
    ...direct,
  };
}

export interface ActionDeps {
  readonly sink: () => InboundSink | null;
  readonly logger: Logger;
  readonly onAnswered: (answered: AnsweredQuestion) => Promise<void>;
}

/**
 * Wires clicks on Errand's buttons (`errand:…` action ids): acknowledged at once, then handed to
 * the sink; a reply from the core goes back ephemerally to the clicker.
 */
export function registerActions(app: App, deps: ActionDeps): void {
  // Schedule buttons and the App Home's Stop buttons are wired in schedule-ui.ts.
  app.action(
    { action_id: /^errand:(stop|answer):/, block_id: /^(?!errand-home-stop)/ },
    async ({ ack, body, respond, context }) => {
      await ack();
      const sink = deps.sink();
      const action = toInboundAction(body, context.teamId ?? null);
      if (!sink || !action) {
        deps.logger.warn({ type: body.type }, "ignoring a Slack click that is not one of Errand's buttons");
        return;
      }
      try {
        const reply = await sink.onAction(action);
        if (reply) await respond({ response_type: 'ephemeral', replace_original: false, ...replyBody(reply) });
        else if (action.kind === 'answer') {
          const parsed = actionBodySchema.parse(body);
          await deps.onAnswered({
            channelId: action.conversation.channel,
            messageTs: parsed.message?.ts ?? parsed.container?.message_ts ?? '',
            questionText: parsed.message?.text ?? '',
            userId: action.userId,
            answer: action.answer,
            ...(parsed.container?.is_ephemeral
              ? {
                  replaceEphemeral: async (shown: SlackMessageBody) =>
                    void (await respond({ replace_original: true, ...shown } as Parameters<typeof respond>[0])),
                }
              : {}),
          });
        }
      } catch (err) {
        deps.logger.error({ err, kind: action.kind }, 'handling a Slack button click failed');
      }
    },
  );
}
