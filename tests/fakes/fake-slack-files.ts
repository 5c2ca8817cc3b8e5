import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Slack's external file upload, as `files.uploadV2` of @slack/web-api drives it (and as an app calling the three
 * steps itself does): `files.getUploadURLExternal` (`filename`, `length`) hands out an upload URL on the file host
 * and a file id; the bytes are POSTed there (raw, or multipart form data with one file part, as the SDK sends
 * them); `files.completeUploadExternal` (`files: [{id, title}]`, `channel_id`, `thread_ts`, `initial_comment`)
 * shares them as one message with subtype `file_share`, once: completing a file again is refused. `files.info`
 * tells where a file is shared (`shares.public|private[channel]` with the message's `ts` and `thread_ts`).
 */

/** A file the bot uploaded, as the fake keeps it. */
export interface UploadedFile {
  readonly id: string;
  readonly filename: string;
  /** What `files.getUploadURLExternal` was told the file would be. */
  readonly length: number;
  /** The bytes POSTed to the upload URL; null before they arrive. */
  bytes: Uint8Array | null;
  /** The content type the upload carried (the multipart part's, else the request's); '' when none. */
  uploadedType: string;
  title: string;
  /** Set once `files.completeUploadExternal` shared it: where, and the message. */
  share: { channel: string; ts: string; threadTs: string | null } | null;
}

/** What the upload endpoints need of the fake Slack around them. */
export interface UploadHost {
  readonly base: string;
  readonly teamId: string;
  readonly botUserId: string;
  /** The error a write to this channel gets (archived, bot removed, deleted), or null. */
  refusal(channel: string): string | null;
  threadExists(channel: string, threadTs: string): boolean;
  /** Stores the bot's file_share message and echoes it to the app; returns its ts. */
  share(message: { channel: string; threadTs: string | null; text: string; files: Record<string, unknown>[] }): string;
  /** Serves the bytes at the file's `url_private`, like a person's file. */
  serve(id: string, file: { name: string; mimetype: string; bytes: Uint8Array }): void;
}

/** Slack answers an error with more than this many files in one `files.completeUploadExternal` (seen: 14 work, 15 fail). */
const MAX_FILES_PER_SHARE = 14;

/** Slack's file types for the extensions the tests use; anything else is `binary`. */
const FILETYPES: Readonly<Record<string, { filetype: string; mimetype: string }>> = {
  png: { filetype: 'png', mimetype: 'image/png' },
  jpg: { filetype: 'jpg', mimetype: 'image/jpeg' },
  jpeg: { filetype: 'jpg', mimetype: 'image/jpeg' },
  gif: { filetype: 'gif', mimetype: 'image/gif' },
  csv: { filetype: 'csv', mimetype: 'text/csv' },
  txt: { filetype: 'text', mimetype: 'text/plain' },
  json: { filetype: 'json', mimetype: 'application/json' },
  pdf: { filetype: 'pdf', mimetype: 'application/pdf' },
};

export class FakeSlackUploads {
  /** Every file uploaded, by id, in the order their URLs were handed out. */
  readonly files = new Map<string, UploadedFile>();
  private readonly urls = new Map<string, string>();

  constructor(private readonly host: UploadHost) {}

  /** Files shared into a channel (optionally one thread), in the order shared. */
  shared(channel: string, threadTs?: string | null): UploadedFile[] {
    return [...this.files.values()].filter(
      (f) => f.share?.channel === channel && (threadTs === undefined || f.share.threadTs === threadTs),
    );
  }

  /** Whether a URL path is an upload URL this fake handed out. */
  isUploadPath(path: string): boolean {
    return path.startsWith('/upload/v1/');
  }

  /** POST to an upload URL: stores the bytes if they are as long as announced, answering like Slack's file host. */
  async receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const id = this.urls.get((req.url ?? '').split('?')[0]!);
    const file = id ? this.files.get(id) : undefined;
    if (req.method !== 'POST' || !file || file.share) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
      return;
    }
    const contentType = String(req.headers['content-type'] ?? '');
    let bytes: Uint8Array = new Uint8Array(raw);
    let uploadedType = contentType;
    if (contentType.startsWith('multipart/form-data')) {
      const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
      const part = [...form.values()].find((v) => typeof v !== 'string') as
        { arrayBuffer(): Promise<ArrayBuffer>; type: string } | undefined;
      if (!part) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('no file in the form');
        return;
      }
      bytes = new Uint8Array(await part.arrayBuffer());
      uploadedType = part.type;
    }
    if (bytes.byteLength !== file.length) {
      res
        .writeHead(400, { 'content-type': 'text/plain' })
        .end(`length mismatch: announced ${file.length}, received ${bytes.byteLength}`);
      return;
    }
    file.bytes = bytes;
    file.uploadedType = uploadedType;
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${bytes.byteLength}`);
  }

  /** The `files.*` Web API methods; null for another method. */
  api(method: string, a: Record<string, unknown>): Record<string, unknown> | null {
    switch (method) {
      case 'files.getUploadURLExternal':
        return this.uploadUrl(a);
      case 'files.completeUploadExternal':
        return this.complete(a);
      case 'files.info':
        return this.info(a);
      default:
        return null;
    }
  }

  private uploadUrl(a: Record<string, unknown>): Record<string, unknown> {
    const filename = typeof a.filename === 'string' ? a.filename : '';
    const length = Number(a.length);
    if (filename.trim() === '' || !Number.isInteger(length) || length < 1)
      return { ok: false, error: 'invalid_arguments' };
    const id = `F${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`;
    const path = `/upload/v1/${randomUUID().replace(/-/g, '')}`;
    this.urls.set(path, id);
    this.files.set(id, { id, filename, length, bytes: null, uploadedType: '', title: filename, share: null });
    return { ok: true, upload_url: `${this.host.base}${path}`, file_id: id };
  }

  private complete(a: Record<string, unknown>): Record<string, unknown> {
    let list: unknown = a.files;
    if (typeof list === 'string') {
      try {
        list = JSON.parse(list) as unknown;
      } catch {
        return { ok: false, error: 'invalid_arguments' };
      }
    }
    if (!Array.isArray(list) || list.length === 0 || !list.every((f) => typeof (f as { id?: unknown }).id === 'string'))
      return { ok: false, error: 'invalid_arguments' };
    if (list.length > MAX_FILES_PER_SHARE) return { ok: false, error: 'internal_error' };
    const entries = list as { id: string; title?: unknown }[];
    const files = entries.map((e) => this.files.get(e.id));
    // Never uploaded, never sent its bytes, or completed already ("can only be called once").
    if (files.some((f) => !f || f.bytes === null || f.share !== null)) return { ok: false, error: 'file_not_found' };
    const channel = typeof a.channel_id === 'string' ? a.channel_id : '';
    const threadTs = typeof a.thread_ts === 'string' && a.thread_ts !== '' ? a.thread_ts : null;
    const shared = files as UploadedFile[];
    entries.forEach((e, i) => {
      if (typeof e.title === 'string' && e.title !== '') shared[i]!.title = e.title;
    });
    if (channel === '') return { ok: true, files: shared.map((f) => ({ id: f.id, title: f.title })) };
    if (!/^[CDG][A-Z0-9]{2,}$/.test(channel)) return { ok: false, error: 'channel_not_found' };
    const refusal = this.host.refusal(channel);
    if (refusal) return { ok: false, error: refusal };
    if (threadTs && !this.host.threadExists(channel, threadTs)) return { ok: false, error: 'thread_not_found' };
    const text = typeof a.initial_comment === 'string' ? a.initial_comment : '';
    const objects = shared.map((f) => this.object(f));
    const ts = this.host.share({ channel, threadTs, text, files: objects });
    for (const f of shared) {
      f.share = { channel, ts, threadTs };
      this.host.serve(f.id, { name: f.filename, mimetype: typeOf(f).mimetype, bytes: f.bytes! });
    }
    return { ok: true, files: shared.map((f) => ({ id: f.id, title: f.title })) };
  }

  private info(a: Record<string, unknown>): Record<string, unknown> {
    const file = this.files.get(String(a.file ?? ''));
    if (!file) return { ok: false, error: 'file_not_found' };
    return { ok: true, file: this.object(file) };
  }

  /** A file as Slack's events, history and `files.info` carry it (with `shares` once shared). */
  private object(f: UploadedFile): Record<string, unknown> {
    const { filetype, mimetype } = typeOf(f);
    const pri = `${this.host.base}/files-pri/${this.host.teamId}-${f.id}`;
    const share = f.share;
    const visibility = share && share.channel.startsWith('C') ? 'public' : 'private';
    return {
      id: f.id,
      created: Math.floor(Date.now() / 1000),
      timestamp: Math.floor(Date.now() / 1000),
      name: f.filename,
      title: f.title,
      mimetype,
      filetype,
      pretty_type: filetype.toUpperCase(),
      user: this.host.botUserId,
      user_team: this.host.teamId,
      editable: false,
      size: f.length,
      mode: 'hosted',
      is_external: false,
      external_type: '',
      is_public: visibility === 'public',
      public_url_shared: false,
      display_as_bot: false,
      username: '',
      url_private: `${pri}/${encodeURIComponent(f.filename)}`,
      url_private_download: `${pri}/download/${encodeURIComponent(f.filename)}`,
      permalink: `https://fake.slack.com/files/${this.host.botUserId}/${f.id}/${f.filename}`,
      ...(share
        ? {
            shares: {
              [visibility]: {
                [share.channel]: [
                  {
                    reply_users: [],
                    reply_users_count: 0,
                    reply_count: 0,
                    ts: share.ts,
                    ...(share.threadTs ? { thread_ts: share.threadTs } : {}),
                    channel_name: share.channel.toLowerCase(),
                    team_id: this.host.teamId,
                    share_user_id: this.host.botUserId,
                    source: 'UNKNOWN',
                  },
                ],
              },
            },
            channels: visibility === 'public' ? [share.channel] : [],
            groups: share.channel.startsWith('G') ? [share.channel] : [],
            ims: share.channel.startsWith('D') ? [share.channel] : [],
          }
        : { channels: [], groups: [], ims: [] }),
    };
  }
}

/** Slack decides a file's type from its name (the upload's own content type does not count). */
function typeOf(f: UploadedFile): { filetype: string; mimetype: string } {
  const ext = f.filename.split('.').pop()?.toLowerCase() ?? '';
  return FILETYPES[ext] ?? { filetype: 'binary', mimetype: 'application/octet-stream' };
}

/** What a file_share message of the bot carries besides its files: Slack sets no `bot_id` on it, only `user`. */
export function fileShareFields(text: string, files: Record<string, unknown>[]): Record<string, unknown> {
  return { subtype: 'file_share', text, files, upload: true, display_as_bot: false };
}

/** A random id that looks like Slack's file ids, for tests that need one the fake never handed out. */
export const unknownFileId = (): string => `F${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`;
