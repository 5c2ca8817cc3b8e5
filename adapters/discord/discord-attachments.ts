import type { Attachment } from 'discord.js';
import type { InboundAttachment } from '../../src/chat/inbound.js';
import { AdapterError } from '../../src/errors.js';

/** Downloads one attachment URL (Discord's CDN links are signed and need no token). */
export type DiscordFileDownload = (url: string, signal: AbortSignal) => Promise<Uint8Array>;

/** The default download: Node's fetch (injected in tests as another function if needed). */
export function createDiscordFileDownloader(doFetch: typeof fetch = fetch): DiscordFileDownload {
  return async (url, signal) => {
    const res = await doFetch(url, { signal });
    if (!res.ok) throw new AdapterError(`Discord attachment download failed (HTTP ${res.status})`);
    return new Uint8Array(await res.arrayBuffer());
  };
}

/** A message's attachments as the core's; each downloads only when the core asks. */
export function toAttachments(attachments: Iterable<Pick<Attachment, 'name' | 'contentType' | 'size' | 'url'>>, download: DiscordFileDownload): InboundAttachment[] {
  return [...attachments].map((a) => ({
    name: a.name,
    mimeType: a.contentType ?? '',
    size: a.size,
    fetch: (signal: AbortSignal) => download(a.url, signal),
  }));
}
