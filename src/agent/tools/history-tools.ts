import { z } from 'zod';
import type { ConversationHistory, HistoryMessage, HistoryPage } from '../../chat/conversation-history.js';
import { defineTool, fail, ok, type ToolContext, type ToolOutcome } from './tool.js';

/** Finds what a platform can read of its history (the app's adapters by name); the tools write nothing. */
export type AdapterLookup = (
  platform: string,
) => { readonly capabilities: { readonly history?: ConversationHistory | undefined } } | undefined;

/** Longest text of one message the model gets; longer ones are cut with a note. */
const MAX_TEXT = 4000;

/** The compact shape the model reads for one message. */
export function historyMessageView(m: HistoryMessage) {
  return {
    author: m.author.name,
    time: m.time,
    text: m.text.length > MAX_TEXT ? `${m.text.slice(0, MAX_TEXT)}… (cut, ${m.text.length} characters in all)` : m.text,
    ...(m.author.isBot ? { bot: true } : {}),
    ...(m.author.isSelf ? { self: true } : {}),
    ...(m.replyCount !== undefined && m.replyCount > 0 ? { replies: m.replyCount } : {}),
  };
}

const pageResult = (page: HistoryPage): ToolOutcome =>
  ok({
    count: page.messages.length,
    messages: page.messages.map(historyMessageView),
    ...(page.truncated ? { truncated: true } : {}),
  });

/**
 * `read_thread` and `read_channel`: what people wrote on the platform, also what the bot never
 * answered. The conversation comes from the run, never from the model, so no argument can point
 * the tools at another channel.
 */
export function createHistoryTools(adapterFor: AdapterLookup) {
  const read = async (
    ctx: ToolContext,
    what: string,
    call: (history: ConversationHistory) => Promise<HistoryPage>,
  ): Promise<ToolOutcome> => {
    const history = adapterFor(ctx.conversation.platform)?.capabilities.history;
    if (!history)
      return fail(
        `Reading ${what} is not possible on ${ctx.conversation.platform}: this platform keeps no message history Errand can read. Work from the conversation you already have.`,
      );
    try {
      return pageResult(await call(history));
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      return fail(`Could not read ${what}: ${reason}. Try again later, or with a smaller limit.`);
    }
  };

  return [
    defineTool({
      name: 'read_thread',
      description:
        "This conversation's messages on the platform, oldest first, with author, time (ISO 8601) and text: people's and bots', also those you never answered. self: true marks your own messages, bot: true any bot's. truncated: true means there are more than limit.",
      parameters: z.object({
        limit: z.number().int().min(1, 'limit must be at least 1').max(500, 'limit must be at most 500').optional(),
      }),
      execute: ({ limit }, ctx) =>
        read(ctx, 'this thread', (h) => h.readThread(ctx.conversation, { limit: limit ?? 100 })),
    }),
    defineTool({
      name: 'read_channel',
      description:
        "Recent top-level messages of this conversation's channel (in a DM: the DM), oldest first, with author, time, text and reply counts (replies). since (ISO 8601 with offset, e.g. 2025-01-31T09:00:00Z) keeps only newer messages. Only this channel can be read.",
      parameters: z.object({
        limit: z.number().int().min(1, 'limit must be at least 1').max(200, 'limit must be at most 200').optional(),
        since: z.iso
          .datetime({
            offset: true,
            message: 'since must be an ISO 8601 date-time with offset, e.g. 2025-01-31T09:00:00Z',
          })
          .optional(),
      }),
      execute: ({ limit, since }, ctx) =>
        read(ctx, 'this channel', (h) =>
          h.readChannel(ctx.conversation, { limit: limit ?? 50, ...(since ? { since: Date.parse(since) } : {}) }),
        ),
    }),
  ];
}
