import { z } from 'zod';
import type { InboundAttachment } from '../../src/chat/inbound.js';
import { AdapterError } from '../../src/errors.js';
import { readCappedBody } from '../../src/net/capped-body.js';

/** A file on a Slack message event (`files`, with subtype `file_share`): the fields Errand uses. */
export const slackFileSchema = z.object({
  id: z.string(),
  name: z.string().optional(),
  title: z.string().optional(),
  mimetype: z.string().optional(),
  filetype: z.string().optional(),
  size: z.number().nonnegative().optional(),
  url_private: z.string().optional(),
  url_private_download: z.string().optional(),
});

export type SlackFile = z.infer<typeof slackFileSchema>;

/** Downloads one private file URL with the bot token; `maxBytes` (the size Slack stated) caps what is read. */
export type SlackFileDownload = (url: string, signal: AbortSignal, maxBytes?: number) => Promise<Uint8Array>;

export interface SlackFileDownloaderOptions {
  botToken: string;
  /** SLACK_API_URL: when set (a local fake), files are also accepted from its origin. */
  apiUrl?: string;
  /** Injected for tests; default: Node's fetch. */
  fetch?: typeof fetch;
}

const SLACK_FILES_ORIGIN = 'https://files.slack.com';

/**
 * Downloads `url_private` files the way Slack requires: `Authorization: Bearer xoxb-…` (scope
 * `files:read`). The token goes only to files.slack.com (or the SLACK_API_URL origin), never to a
 * host named in an event. Slack answers a request it does not accept with a redirect to its sign-in
 * page rather than an error, so any redirect is a failure, not a file.
 */
export function createSlackFileDownloader(options: SlackFileDownloaderOptions): SlackFileDownload {
  const doFetch = options.fetch ?? fetch;
  const origins = new Set([SLACK_FILES_ORIGIN, ...(options.apiUrl ? [new URL(options.apiUrl).origin] : [])]);
  return async (url, signal, maxBytes) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      throw new AdapterError(`Slack file URL is not a URL: ${url}`);
    }
    if (!origins.has(target.origin))
      throw new AdapterError(
        `Slack file URL ${target.origin} is not on ${[...origins].join(' or ')}: not sending the bot token there`,
      );
    const res = await doFetch(target, {
      headers: { authorization: `Bearer ${options.botToken}` },
      redirect: 'manual',
      signal,
    });
    if (res.status >= 300 && res.status < 400)
      throw new AdapterError(`Slack refused the file download (redirected to sign-in): check the files:read scope`);
    if (!res.ok) throw new AdapterError(`Slack file download failed (HTTP ${res.status})`);
    return readCappedBody(res as Response, maxBytes ?? null, 'The Slack file');
  };
}

/** The files of a message as the core's attachments; each downloads only when the core asks. */
export function toAttachments(files: readonly SlackFile[], download: SlackFileDownload): InboundAttachment[] {
  return files.map((f) => {
    const url = f.url_private_download ?? f.url_private;
    return {
      name: f.name ?? f.title ?? f.id,
      mimeType: f.mimetype ?? '',
      size: f.size ?? 0,
      // Read no more than Slack said the file is: the core checked its caps against that size.
      fetch: (signal: AbortSignal) =>
        url
          ? download(url, signal, f.size !== undefined && f.size > 0 ? f.size : undefined)
          : Promise.reject(new AdapterError(`Slack gave no download URL for file ${f.id}`)),
    };
  });
}
