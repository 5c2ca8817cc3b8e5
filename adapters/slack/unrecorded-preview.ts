import { z } from 'zod';
import type { UnrecordedPreview } from '../../src/chat/chat-adapter.js';
import { findPostedKeys, OUTBOX_EVENT_TYPE, type PostedLookupDeps } from './posted-lookup.js';

/** Pages of a thread read at most when looking for a preview message. */
const MAX_PAGES = 10;

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

/** A Slack `ts` (seconds with microseconds) as milliseconds since the epoch. */
const tsMillis = (ts: string): number => Number(ts) * 1000;

/**
 * Finds a preview message whose post reached Slack while the process that sent it died before hearing
 * the answer. `chat.startStream` takes no metadata, so in a thread the message is recognised by what
 * it is: the bot's earliest reply between `probe.since` and `probe.until` that no recorded id owns and
 * that carries no other post's key (a post carrying `probe.key` itself, from the edited fallback, is
 * taken at once).
 * Outside a thread previews are plain posts with metadata: the key finds them.
 */
export async function findUnrecordedPreview(
  deps: PostedLookupDeps,
  where: { channelId: string; threadTs: string | null },
  probe: UnrecordedPreview,
): Promise<string | null> {
  if (where.threadTs === null) return (await findPostedKeys(deps, where, [probe.key])).get(probe.key) ?? null;
  const me = deps.botId();
  const oldest = (Math.max(0, probe.since) / 1000).toFixed(6);
  let earliest: string | null = null;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const args = {
      channel: where.channelId,
      ts: where.threadTs,
      oldest,
      include_all_metadata: true,
      limit: 200,
      ...(cursor ? { cursor } : {}),
    };
    const parsed = pageSchema.parse(await deps.call('conversations.replies', args));
    for (const m of parsed.messages) {
      if (
        m.ts === where.threadTs ||
        tsMillis(m.ts) < probe.since ||
        (probe.until !== null && tsMillis(m.ts) >= probe.until)
      )
        continue;
      if (m.bot_id === undefined || (me !== null && m.bot_id !== me)) continue;
      const key = m.metadata?.event_type === OUTBOX_EVENT_TYPE ? m.metadata.event_payload?.key : undefined;
      if (key === probe.key) return m.ts;
      if (key !== undefined || probe.known.has(m.ts)) continue;
      if (earliest === null || tsMillis(m.ts) < tsMillis(earliest)) earliest = m.ts;
    }
    cursor = parsed.response_metadata?.next_cursor || undefined;
    if (!cursor) break;
  }
  return earliest;
}
