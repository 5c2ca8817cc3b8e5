import { Routes } from 'discord.js';
import { z } from 'zod';
import type { FilePostCapability } from '../../src/chat/delivery.js';
import type { FileLimits } from '../../src/chat/file-posts.js';
import type { PlatformTraffic } from '../../src/chat/platform-traffic.js';
import { AdapterError } from '../../src/errors.js';
import type { BotThreads } from './bot-threads.js';
import { locate } from './discord-outbound.js';
import { rest, type DiscordRest } from './discord-rest.js';
import { postTargetOf } from './discord-thread-id.js';
import { withNonces } from './message-bodies.js';

/** What a bot may upload to a server without boosts (10 MiB per file since 2024): boosted servers take more, this always goes through. */
export const DISCORD_DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
/** Discord takes at most ten attachments on one message. */
const FILES_PER_MESSAGE = 10;

const postedSchema = z.object({ id: z.string() });

export interface DiscordFilePostsDeps {
  readonly rest: DiscordRest;
  readonly botThreads: BotThreads;
  /** The largest file posted, in bytes; default 10 MiB (tests lower it). */
  readonly maxFileBytes?: number | undefined;
  readonly traffic?: PlatformTraffic | undefined;
}

/**
 * Files into a Discord conversation as one message with attachments: `POST /channels/{id}/messages` as
 * multipart/form-data, each file as `files[n]` and `payload_json` naming them in `attachments` (discord.js's
 * REST client builds the form). Discord shows images inline by itself. The post carries the outbox row's key as
 * its nonce with `enforce_nonce`, so a try after a crash gets the first message back instead of a second one
 * (within Discord's nonce window of a few minutes). Paced through the channel's queue like every other post.
 */
export function createDiscordFilePosts(deps: DiscordFilePostsDeps): FilePostCapability {
  const { api, queue } = deps.rest;
  const maxFileBytes = deps.maxFileBytes ?? DISCORD_DEFAULT_MAX_FILE_BYTES;
  // A message's files together stay within one file's limit: what a server without boosts always takes.
  const limits: FileLimits = { maxFileBytes, maxFilesPerMessage: FILES_PER_MESSAGE, maxMessageBytes: maxFileBytes };
  return {
    limits,
    async postFiles(conversation, post) {
      const loc = locate(conversation);
      const target = postTargetOf(loc);
      if (post.files.length === 0) throw new AdapterError('Refusing to post no files to Discord.');
      if (post.files.length > FILES_PER_MESSAGE)
        throw new AdapterError(`Discord takes at most ${FILES_PER_MESSAGE} files on one message`);
      const total = post.files.reduce((n, f) => n + f.bytes.byteLength, 0);
      if (total > maxFileBytes)
        throw new AdapterError(`${total} bytes of files are over the ${maxFileBytes} Discord takes on one message`);
      const names = post.files.map((f) => attachmentName(f.name));
      const [body] = withNonces([{ content: '', allowed_mentions: { parse: [], users: [] } }], post.idempotencyKey);
      const payload = { ...body!, attachments: names.map((filename, id) => ({ id, filename })) };
      const files = post.files.map((f, i) => ({
        name: names[i]!,
        data: Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength),
        contentType: f.mimeType,
      }));
      const posted = await queue.enqueue(target, (send) =>
        send(() =>
          rest('file post', () => api.post(Routes.channelMessages(target), { body: payload, files }), postedSchema),
        ),
      );
      deps.traffic?.posted();
      if (loc.threadId) deps.botThreads.mark(loc.threadId);
      return { id: posted.id };
    },
  };
}

/** A file's name as Discord shows it: no folders (`charts/q1.png` → `charts_q1.png`), never empty. */
function attachmentName(name: string): string {
  const flat = name
    .split('/')
    .filter((p) => p !== '')
    .join('_');
  return flat === '' ? 'file' : flat;
}
