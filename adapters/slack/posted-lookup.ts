import { z } from 'zod';

/** The metadata event type Errand attaches to its posts, so a post can be recognised after a crash. */
export const OUTBOX_EVENT_TYPE = 'errand_outbox';
/** Pages of a thread or channel read at most when looking for earlier posts. */
const MAX_PAGES = 20;

/** The `metadata` of a post carrying an idempotency key. */
export function outboxMetadata(key: string): { event_type: string; event_payload: { key: string } } {
  return { event_type: OUTBOX_EVENT_TYPE, event_payload: { key } };
}

const pageSchema = z.object({
  messages: z
    .array(
      z
        .object({
          ts: z.string(),
          bot_id: z.string().optional(),
          metadata: z
            .object({ event_type: z.string(), event_payload: z.object({ key: z.string() }).passthrough().optional() })
            .optional(),
        })
        .passthrough(),
    )
    .default([]),
  response_metadata: z.object({ next_cursor: z.string().optional() }).optional(),
});

export interface PostedLookupDeps {
  /** One Web API call (the adapter's, which maps errors). */
  call(method: string, args: Record<string, unknown>): Promise<unknown>;
  botId(): string | null;
}

/**
 * Finds the bot's posts carrying these idempotency keys in a thread (`conversations.replies`) or a
 * channel (`conversations.history`, newest first), reading metadata with `include_all_metadata`.
 * Slack has no idempotency key for `chat.postMessage`: this look is how a post whose answer was lost
 * (a crash, a timeout) is adopted instead of posted twice.
 */
export async function findPostedKeys(
  deps: PostedLookupDeps,
  where: { channelId: string; threadTs: string | null },
  keys: readonly string[],
): Promise<Map<string, string>> {
  const wanted = new Set(keys);
  const found = new Map<string, string>();
  const me = deps.botId();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES && found.size < wanted.size; page++) {
    const args = {
      channel: where.channelId,
      include_all_metadata: true,
      limit: 200,
      ...(where.threadTs ? { ts: where.threadTs } : {}),
      ...(cursor ? { cursor } : {}),
    };
    const raw = await deps.call(where.threadTs ? 'conversations.replies' : 'conversations.history', args);
    const parsed = pageSchema.parse(raw);
    for (const m of parsed.messages) {
      const key = m.metadata?.event_type === OUTBOX_EVENT_TYPE ? m.metadata.event_payload?.key : undefined;
      if (key !== undefined && wanted.has(key) && (me === null || m.bot_id === me)) found.set(key, m.ts);
    }
    cursor = parsed.response_metadata?.next_cursor || undefined;
    if (!cursor) break;
  }
  return found;
}
