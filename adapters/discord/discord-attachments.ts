import type { Attachment } from 'discord.js';
import type { InboundAttachment } from '../../src/chat/inbound.js';
import { AdapterError } from '../../src/errors.js';
import { readCappedBody } from '../../src/net/capped-body.js';

/** Downloads one attachment URL (Discord's CDN links are signed and need no token); `maxBytes` caps what is read. */
export type DiscordFileDownload = (url: string, signal: AbortSignal, maxBytes?: number) => Promise<Uint8Array>;

/** Where Discord serves attachments. */
const DISCORD_CDN_ORIGINS = ['https://cdn.discordapp.com', 'https://media.discordapp.net'];

/**
 * The default download: Node's fetch, only from Discord's CDN (or the DISCORD_API_URL origin, a local fake),
 * never from a host named elsewhere, reading no more than the size Discord stated.
 */
export function createDiscordFileDownloader(
  options: { apiUrl?: string | undefined; fetch?: typeof fetch } = {},
): DiscordFileDownload {
  const doFetch = options.fetch ?? fetch;
  const origins = new Set([...DISCORD_CDN_ORIGINS, ...(options.apiUrl ? [new URL(options.apiUrl).origin] : [])]);
  return async (url, signal, maxBytes) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      throw new AdapterError(`Discord attachment URL is not a URL: ${url}`);
    }
    if (!origins.has(target.origin))
      throw new AdapterError(`Discord attachment URL ${target.origin} is not on Discord's CDN: not downloading it`);
    const res = await doFetch(target, { signal });
    if (!res.ok) throw new AdapterError(`Discord attachment download failed (HTTP ${res.status})`);
    return readCappedBody(res, maxBytes ?? null, 'The Discord attachment');
  };
}

/** A message's attachments as the core's; each downloads only when the core asks. */
export function toAttachments(
  attachments: Iterable<Pick<Attachment, 'name' | 'contentType' | 'size' | 'url'>>,
  download: DiscordFileDownload,
): InboundAttachment[] {
  return [...attachments].map((a) => ({
    name: a.name,
    mimeType: a.contentType ?? '',
    size: a.size,
    // Read no more than Discord said the file is: the core checked its caps against that size.
    fetch: (signal: AbortSignal) => download(a.url, signal, a.size > 0 ? a.size : undefined),
  }));
}
