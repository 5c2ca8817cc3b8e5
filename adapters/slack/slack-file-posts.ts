import { z } from 'zod';
import type { FilePost, FilePostCapability, FilePostHooks } from '../../src/chat/delivery.js';
import type { FileLimits, OutboundFile } from '../../src/chat/file-posts.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import type { PlatformTraffic } from '../../src/chat/platform-traffic.js';
import { AdapterError } from '../../src/errors.js';
import { createKeepAliveFetch } from '../../src/net/keep-alive-fetch.js';
import type { OutboundQueue } from './outbound-queue.js';
import type { SlackCall } from './slack-call.js';
import { platformError } from './slack-api.js';
import { locate } from './slack-outbound.js';
import type { SlackLocation } from './slack-thread-id.js';

/** The default largest file Errand posts on Slack (Slack itself takes up to 1 GB): SLACK_MAX_FILE_MB. */
export const SLACK_DEFAULT_MAX_FILE_BYTES = 100 * 1000 * 1000;
/** Files shared in one message: Slack's own clients share up to ten at once (its API fails past fourteen). */
const FILES_PER_MESSAGE = 10;
/** Longest wait for one file's bytes to reach Slack's file host. */
const UPLOAD_TIMEOUT_MS = 120_000;
const SLACK_FILES_ORIGIN = 'https://files.slack.com';

const uploadUrlSchema = z.object({ upload_url: z.string(), file_id: z.string() });
const completedSchema = z.object({ files: z.array(z.object({ id: z.string() })).default([]) });
const shareSchema = z.object({ ts: z.string(), thread_ts: z.string().optional() }).passthrough();
const infoSchema = z.object({
  file: z.object({
    id: z.string(),
    shares: z
      .object({
        public: z.record(z.string(), z.array(shareSchema)).optional(),
        private: z.record(z.string(), z.array(shareSchema)).optional(),
      })
      .partial()
      .optional(),
  }),
});

export interface SlackFilePostsDeps {
  readonly api: SlackCall;
  readonly queue: OutboundQueue;
  /** SLACK_API_URL: when set (a local fake), its origin is Slack's file host too. */
  readonly apiUrl?: string | undefined;
  /** The largest file posted (SLACK_MAX_FILE_MB); default 100 MB. */
  readonly maxFileBytes?: number | undefined;
  readonly traffic?: PlatformTraffic | undefined;
  /** Injected for tests; default: Node's http with kept-alive connections, as the Web API client uses. */
  readonly fetch?: typeof fetch;
}

/**
 * Files into a Slack conversation through the external upload API, the three steps `files.uploadV2` of
 * @slack/web-api takes, called one by one so the outbox can record the file ids between them: each file's
 * `files.getUploadURLExternal`, its bytes POSTed to the returned URL on files.slack.com, then (the ids recorded
 * through `hooks.staged`) one `files.completeUploadExternal` shares them all as one message in the thread. Slack
 * shows images inline by itself. A post tried again after a crash asks `files.info` whether its recorded files
 * are shared here already (then it is done), completes them if they are not, and uploads anew only when Slack
 * no longer has them: never a second message of the same files.
 */
export function createSlackFilePosts(deps: SlackFilePostsDeps): FilePostCapability {
  const doFetch = deps.fetch ?? createKeepAliveFetch({ readWholeBody: true });
  const hosts = new Set([SLACK_FILES_ORIGIN, ...(deps.apiUrl ? [new URL(deps.apiUrl).origin] : [])]);
  const maxFileBytes = deps.maxFileBytes ?? SLACK_DEFAULT_MAX_FILE_BYTES;
  const limits: FileLimits = {
    maxFileBytes,
    maxFilesPerMessage: FILES_PER_MESSAGE,
    maxMessageBytes: maxFileBytes * FILES_PER_MESSAGE,
  };

  const upload = async (file: OutboundFile): Promise<string> => {
    const { upload_url, file_id } = await deps.api(
      'files.getUploadURLExternal',
      { filename: fileNameOf(file.name), length: file.bytes.byteLength },
      uploadUrlSchema,
    );
    let target: URL;
    try {
      target = new URL(upload_url);
    } catch {
      throw new AdapterError(`Slack gave an upload URL that is not a URL: ${upload_url}`);
    }
    if (!hosts.has(target.origin))
      throw new AdapterError(
        `Slack's upload URL ${target.origin} is not on ${[...hosts].join(' or ')}: not sending the file there`,
      );
    const res = await doFetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: file.bytes,
      redirect: 'manual',
      signal: AbortSignal.timeout(UPLOAD_TIMEOUT_MS),
    });
    await res.arrayBuffer().catch(() => undefined);
    if (res.status !== 200) throw new AdapterError(`Slack refused the bytes of ${file.name} (HTTP ${res.status})`);
    return file_id;
  };

  /** Where the files of an earlier try stand: shared here (done), waiting to be shared, or gone from Slack. */
  const lookUp = async (ids: readonly string[], loc: SlackLocation): Promise<'shared' | 'waiting' | 'gone'> => {
    let info: z.infer<typeof infoSchema>;
    try {
      info = await deps.api('files.info', { file: ids[0] }, infoSchema);
    } catch (err) {
      const code = platformError(err);
      if (code === 'file_not_found' || code === 'file_deleted') return 'gone';
      throw err;
    }
    const shares = info.file.shares ?? {};
    const here = [...(shares.public?.[loc.channelId] ?? []), ...(shares.private?.[loc.channelId] ?? [])];
    return here.some((s) => (s.thread_ts ?? null) === loc.threadTs) ? 'shared' : 'waiting';
  };

  const share = async (ids: readonly string[], files: readonly OutboundFile[], loc: SlackLocation) => {
    await deps.queue.enqueue(loc.channelId, (send) =>
      send(() =>
        deps.api(
          'files.completeUploadExternal',
          {
            files: ids.map((id, i) => ({ id, title: files[i]?.name ?? id })),
            channel_id: loc.channelId,
            ...(loc.threadTs ? { thread_ts: loc.threadTs } : {}),
          },
          completedSchema,
        ),
      ),
    );
    deps.traffic?.posted();
  };

  return {
    limits,
    async postFiles(conversation: ConversationRef, post: FilePost, hooks?: FilePostHooks) {
      const loc = locate(conversation);
      if (post.files.length === 0) throw new AdapterError('Refusing to post no files to Slack.');
      const over = post.files.find((f) => f.bytes.byteLength > maxFileBytes);
      if (over)
        throw new AdapterError(
          `${over.name} is over the ${maxFileBytes} bytes Errand posts on Slack (SLACK_MAX_FILE_MB)`,
        );
      const earlier = post.staged && post.staged.length === post.files.length ? post.staged : null;
      if (earlier) {
        const state = await lookUp(earlier, loc);
        if (state === 'shared') return { id: earlier[0]! };
        if (state === 'waiting') {
          await share(earlier, post.files, loc);
          return { id: earlier[0]! };
        }
      }
      const ids: string[] = [];
      for (const file of post.files) ids.push(await upload(file));
      await hooks?.staged?.(ids);
      await share(ids, post.files, loc);
      return { id: ids[0]! };
    },
  };
}

/** The name Slack files it under: the last part of a path (`charts/q1.png` → `q1.png`); the whole name is its title. */
function fileNameOf(name: string): string {
  return (
    name
      .split('/')
      .filter((p) => p !== '')
      .pop() ?? name
  );
}
