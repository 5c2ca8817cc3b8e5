import { Routes } from 'discord.js';
import { z } from 'zod';
import type { UnrecordedPreview } from '../../src/chat/chat-adapter.js';

/**
 * How long after a post Discord's `enforce_nonce` is trusted to return it. Discord documents the
 * window only as "the past few minutes"; past this, sending the post again would make a second one.
 */
export const NONCE_TRUSTED_MS = 2 * 60_000;
/** Discord's epoch (2015-01-01), which snowflake ids count from. */
const DISCORD_EPOCH = 1_420_070_400_000n;

const pageSchema = z.array(z.object({ id: z.string(), author: z.object({ id: z.string() }) }));

/** The smallest snowflake of a message created at `ms` (ms since the Unix epoch). */
export const snowflakeAt = (ms: number): string =>
  ((BigInt(Math.max(0, Math.floor(ms))) - DISCORD_EPOCH) << 22n).toString();
/** When a snowflake id was made, in ms since the Unix epoch. */
const timeOf = (id: string): number => Number((BigInt(id) >> 22n) + DISCORD_EPOCH);

export interface UnrecordedPreviewDeps {
  /** Posts `text` with `key` as nonce and `enforce_nonce` (the adapter's post); resolves with the message id. */
  repost(text: string, key: string): Promise<string>;
  /** GET on the REST API. */
  get(route: `/${string}`, query: URLSearchParams): Promise<unknown>;
  botId(): string | null;
  now(): number;
}

/**
 * Finds a preview message whose post reached Discord while the process that sent it died before
 * hearing the answer. Within the nonce window the post is sent again with its nonce, and Discord
 * answers with the stored message (or stores one now, which the caller deletes at once). Later than
 * that, the channel is read from `probe.since` on (message ids carry Discord's own time): the bot's
 * earliest message before `probe.until` that no recorded id owns.
 */
export async function findUnrecordedPreview(
  deps: UnrecordedPreviewDeps,
  channelId: string,
  probe: UnrecordedPreview,
): Promise<string | null> {
  if (deps.now() - probe.since < NONCE_TRUSTED_MS) return deps.repost(probe.text, probe.key);
  const me = deps.botId();
  if (me === null) return null;
  const raw = await deps.get(
    Routes.channelMessages(channelId),
    new URLSearchParams({ after: snowflakeAt(probe.since), limit: '100' }),
  );
  const candidates = pageSchema
    .parse(raw)
    .filter((m) => m.author.id === me && !probe.known.has(m.id) && (probe.until === null || timeOf(m.id) < probe.until))
    .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  return candidates[0]?.id ?? null;
}
