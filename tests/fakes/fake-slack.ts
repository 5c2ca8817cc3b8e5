import { parseChunks, validDisplayMode, type ParsedChunks, type StreamedTask } from './slack-stream-chunks.js';
import { FakeSlackUploads, fileShareFields, type UploadHost } from './fake-slack-files.js';
import { createHmac, randomUUID } from 'node:crypto';
import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { WebSocketServer, type WebSocket } from 'ws';

/** One Web API call the fake received (also the ones it refused). */
export interface RecordedCall {
  readonly method: string;
  readonly args: Record<string, unknown>;
  readonly token: string | null;
  readonly at: number;
  /** HTTP status answered (429 for rate limits). */
  status: number;
  /** Slack's `error` string when the answer was `ok: false`. */
  error: string | null;
}

/** A message as the fake stores it, like Slack's history. */
export interface StoredMessage {
  channel: string;
  ts: string;
  thread_ts?: string;
  text: string;
  blocks?: unknown[];
  user: string;
  bot_id?: string;
  reactions: Set<string>;
  reply_count: number;
  /** Message metadata posted with it (`chat.postMessage` `metadata`); returned by history with `include_all_metadata`. */
  metadata?: { event_type: string; event_payload: Record<string, unknown> };
  /** A `chat.startStream` message not stopped yet (appends allowed). */
  streaming?: boolean;
  /** A streamed message's task cards, in the order first shown, each as last updated (`task_update` chunks). */
  tasks?: StreamedTask[];
  /** A streamed message's `task_display_mode` (absent: Slack's default, `timeline`). */
  taskDisplayMode?: 'timeline' | 'plan';
  /** A streamed message's plan title (`plan_update`). */
  planTitle?: string;
  /** `file_share` for a message with files, as history returns it. */
  subtype?: string;
  /** Files on a person's message, as history returns them (the same objects as on its event). */
  files?: Record<string, unknown>[];
}

/** What a delivery to the app got back: the HTTP answer, or the Socket Mode ack payload. */
export interface Delivery {
  readonly status: number;
  readonly body: string;
  /** Milliseconds until the app acknowledged. */
  readonly ms: number;
}

export interface FakeSlackOptions {
  teamId?: string;
  botUserId?: string;
  botId?: string;
  appId?: string;
  signingSecret?: string;
  /** Per-channel message limit enforced with 429 + Retry-After; null disables it. Default: bursts of 4, 1/s. */
  rateLimit?: { burst: number; perSecond: number } | null;
  /** Echo the bot's posts, edits and deletions back as `message` events, like Slack (default true). */
  echo?: boolean;
  /**
   * Most messages one `conversations.history`/`conversations.replies` page holds, whatever `limit`
   * asks (Slack: 999/1000; 15 for apps distributed outside the Marketplace since 2025).
   */
  maxPageSize?: number;
}

/** A Block Kit view the app published or opened. */
export interface StoredView {
  readonly id: string;
  readonly user: string;
  view: {
    type: string;
    blocks: unknown[];
    private_metadata?: string;
    callback_id?: string;
    title?: unknown;
    [k: string]: unknown;
  };
  /** Each views.open, views.update, views.publish and response_action update bumps it. */
  updates: number;
}

type Failure = { status: 429; retryAfter: number } | { error: string };

/** A file a person attaches to a message (what the fake serves at its `url_private`). */
export interface FakeFile {
  name: string;
  mimetype: string;
  bytes: Uint8Array;
  /** Slack's `filetype` (`png`, `text`, `pdf`…); default: the name's extension. */
  filetype?: string;
}

/** Slack's agent session statuses (`agents.sessions.setStatus`, `chat.stopStream` `session_status`): nothing else is taken. */
export const AGENT_SESSION_STATUSES = ['active', 'processing', 'suspended', 'closed'] as const;
export type AgentSessionStatus = (typeof AGENT_SESSION_STATUSES)[number];

/** An agent session of a thread, as the fake keeps it (Slack's Agent Sessions, changelog 2026-08-20). */
export interface FakeAgentSession {
  status: AgentSessionStatus;
  /** Set when the call that created it carried one, or by `agents.sessions.rename`; '' when none. */
  title: string;
  /** `initiator_user_id` of the call that created it; null when none (created by a stream). */
  initiator: string | null;
  /** Every status it had, in order, the first one included (a status set again is not repeated). */
  readonly history: AgentSessionStatus[];
}

const isSessionStatus = (v: unknown): v is AgentSessionStatus =>
  typeof v === 'string' && (AGENT_SESSION_STATUSES as readonly string[]).includes(v);

const MAX_BLOCKS = 50;
const MAX_SECTION_TEXT = 3000;
const MAX_TEXT = 40_000;
/** `markdown_text` of one streaming call. */
const MAX_MARKDOWN_TEXT = 12_000;

let tsCounter = 0;
let lastMicros = 0;
/** Unique, increasing Slack timestamps (`1700000000.000123`). */
export function nextTs(): string {
  const micros = Math.max(Date.now() * 1000 + (tsCounter++ % 1000), lastMicros + 1);
  lastMicros = micros;
  return `${Math.floor(micros / 1e6)}.${String(micros % 1e6).padStart(6, '0')}`;
}

/** Signs a request body the way Slack does (`v0=` + HMAC-SHA256 of `v0:<ts>:<body>`). */
export function signSlackRequest(
  secret: string,
  body: string,
  timestamp = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const signature = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  return { 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': signature };
}

/** Slack returns message metadata from history methods only when asked with `include_all_metadata`. */
function wantsMetadata(a: Record<string, unknown>): boolean {
  return a.include_all_metadata === true || a.include_all_metadata === 'true' || a.include_all_metadata === '1';
}

/** `chat.postMessage` metadata: an object with `event_type` and an `event_payload` object; undefined when absent. */
function metadataOf(raw: unknown): StoredMessage['metadata'] | 'invalid' | undefined {
  if (raw === undefined || raw === '') return undefined;
  const m = raw as { event_type?: unknown; event_payload?: unknown };
  if (
    typeof m !== 'object' ||
    m === null ||
    typeof m.event_type !== 'string' ||
    typeof m.event_payload !== 'object' ||
    m.event_payload === null
  )
    return 'invalid';
  return { event_type: m.event_type, event_payload: m.event_payload as Record<string, unknown> };
}

function channelTypeOf(channel: string): string {
  return channel.startsWith('D') ? 'im' : channel.startsWith('G') ? 'group' : 'channel';
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** One clicked button as a `block_actions` payload lists it. */
function buttonAction(button: { action_id: string; value?: string; text: unknown }, blockId: string | undefined) {
  return {
    action_id: button.action_id,
    block_id: blockId ?? 'b1',
    text: button.text,
    value: button.value,
    type: 'button',
    action_ts: `${Date.now() / 1000}`,
  };
}

/** POSTs and times the answer; without an agent on a fresh connection, so no keep-alive socket is left behind. */
export function httpPost(url: string, body: string, headers: Record<string, string>, agent?: Agent): Promise<Delivery> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: agent ?? false,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            ms: performance.now() - started,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A streaming call's task cards and plan title, onto its message: a card's update replaces what it showed. */
function applyChunks(msg: StoredMessage, chunks: ParsedChunks): void {
  for (const task of chunks.tasks) {
    const tasks = (msg.tasks ??= []);
    const at = tasks.findIndex((t) => t.id === task.id);
    if (at < 0) tasks.push(task);
    else
      tasks[at] = {
        ...task,
        ...(tasks[at]!.details !== undefined || task.details !== undefined
          ? { details: (tasks[at]!.details ?? '') + (task.details ?? '') }
          : {}),
        ...(task.output === undefined && tasks[at]!.output !== undefined ? { output: tasks[at]!.output } : {}),
      };
  }
  if (chunks.planTitle !== null) msg.planTitle = chunks.planTitle;
}

function parseArgs(raw: string, contentType: string): Record<string, unknown> {
  if (contentType.includes('application/json')) return raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
  const args: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    args[k] =
      ((k === 'blocks' || k === 'attachments' || k === 'prompts') && v.startsWith('[')) ||
      (k === 'metadata' && v.startsWith('{'))
        ? JSON.parse(v)
        : v;
  }
  return args;
}

/** A rich_text block like Slack attaches to a person's message, with mentions as user elements. */
function richText(text: string): unknown[] {
  const elements = text
    .split(/(<@[A-Z0-9]+>)/)
    .filter((p) => p !== '')
    .map((p) => (/^<@[A-Z0-9]+>$/.test(p) ? { type: 'user', user_id: p.slice(2, -1) } : { type: 'text', text: p }));
  return [
    { type: 'rich_text', block_id: randomUUID().slice(0, 5), elements: [{ type: 'rich_text_section', elements }] },
  ];
}

function blockProblem(blocks: unknown[]): string | null {
  if (blocks.length > MAX_BLOCKS) return `more than ${MAX_BLOCKS} blocks`;
  for (const b of blocks as {
    type?: string;
    text?: { text?: string };
    elements?: { type?: string; text?: { text?: string }; action_id?: string }[];
  }[]) {
    if (b.type === 'section' && (b.text?.text ?? '').length > MAX_SECTION_TEXT) return 'section text longer than 3000';
    if (b.type === 'section' && (b.text?.text ?? '') === '') return 'empty section text';
    if (b.type === 'actions') {
      if (!b.elements || b.elements.length === 0 || b.elements.length > 25)
        return 'actions block needs 1 to 25 elements';
      for (const e of b.elements)
        if ((e.text?.text ?? '').length > 75 || (e.action_id ?? '').length > 255)
          return 'button text or action_id too long';
    }
  }
  return null;
}

/**
 * A fake Slack for the real Bolt app: the Web API (`/api/<method>`) with Slack's limits and
 * errors, message storage, echoes of the bot's own posts as events, response_url endpoints, and
 * drivers that deliver signed Events API / slash-command / interactivity requests to the HTTP
 * receiver or envelopes over a fake Socket Mode websocket.
 */
export class FakeSlack {
  readonly teamId: string;
  readonly botUserId: string;
  readonly botId: string;
  readonly appId: string;
  readonly signingSecret: string;
  readonly calls: RecordedCall[] = [];
  /** Bodies POSTed to response_url (slash command and button answers). */
  readonly responses: { id: string; body: Record<string, unknown> }[] = [];
  readonly ephemerals: { channel: string; user: string; text: string; thread_ts?: string }[] = [];
  /** The same ephemeral messages with their blocks (their buttons can be clicked: `clickInEphemeral`). */
  readonly ephemeralMessages: {
    channel: string;
    user: string;
    text: string;
    thread_ts?: string;
    blocks?: unknown[];
  }[] = [];
  /** Every event delivered to the app, with its answer. */
  readonly deliveries: { event: Record<string, unknown>; eventId: string; delivery: Delivery }[] = [];
  rateLimit: { burst: number; perSecond: number } | null;
  echo: boolean;
  /** Called after every Web API call was answered (benchmarks wait on it instead of polling). */
  onCall: ((call: RecordedCall) => void) | null = null;
  /** People `users.info` knows: `name` is the handle; `displayName` may be empty, as on Slack. */
  users = new Map<string, { name: string; tz?: string; displayName?: string; realName?: string }>();
  maxPageSize: number;
  /** Views the app published (Home tabs) or opened (modals), by view id. */
  readonly views = new Map<string, StoredView>();
  /** Channels each person is in, for `users.conversations` (default: C0GENERAL). */
  memberships = new Map<string, string[]>();
  /** trigger_ids handed to the app that it has not used yet (Slack: one use, a few seconds). */
  private readonly triggers = new Map<string, string>();
  /** Every request for a file's `url_private`, with the token it carried (null: none). */
  readonly fileDownloads: { id: string; token: string | null; status: number }[] = [];
  private readonly files = new Map<string, FakeFile>();
  /** Files the bot uploaded (`files.getUploadURLExternal`, the upload URL, `files.completeUploadExternal`, `files.info`). */
  readonly uploads: FakeSlackUploads = new FakeSlackUploads(this.uploadHost());
  private readonly channels = new Map<string, StoredMessage[]>();
  private streamRefusal: string | null = null;
  /** What `conversations.open` answers instead of a channel (`missing_scope` without im:write); null: it opens one. */
  imRefusal: string | null = null;
  /** Agent sessions by `<channel>/<thread root ts>`. */
  readonly agentSessions = new Map<string, FakeAgentSession>();
  /** What `agents.sessions.*` answer while the app is not an agent here (`unknown_method`…); null: it is one. */
  private agentRefusal: string | null = null;
  private chunkRefusal: string | null = null;
  private readonly failures = new Map<string, Failure[]>();
  /** Channels that refuse every write, with Slack's error (`is_archived`, `not_in_channel`, `channel_not_found`). */
  private readonly closed = new Map<string, string>();
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly sockets = new Set<WebSocket>();
  private readonly acks = new Map<string, (payload: string) => void>();
  /** HTTP receivers events go to, in turn (a load balancer in front of several processes). */
  private httpTargets: string[] = [];
  private nextTarget = 0;
  private held: { method: string; waiting: (() => void)[] } | null = null;
  /** Slack keeps its connections to an app open between deliveries. */
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  private server!: Server;
  private wss!: WebSocketServer;
  private base = '';

  private constructor(options: FakeSlackOptions) {
    this.teamId = options.teamId ?? 'T0FAKE01';
    this.botUserId = options.botUserId ?? 'U0BOT001';
    this.botId = options.botId ?? 'B0BOT001';
    this.appId = options.appId ?? 'A0APP001';
    this.signingSecret = options.signingSecret ?? 'fake-signing-secret';
    this.rateLimit = options.rateLimit === undefined ? { burst: 4, perSecond: 1 } : options.rateLimit;
    this.echo = options.echo ?? true;
    this.maxPageSize = options.maxPageSize ?? 1000;
  }

  /** Starts the fake on 127.0.0.1 with a free port. */
  static async start(options: FakeSlackOptions = {}): Promise<FakeSlack> {
    const fake = new FakeSlack(options);
    fake.server = createServer((req, res) => void fake.handle(req, res));
    fake.server.keepAliveTimeout = 5000;
    fake.wss = new WebSocketServer({ noServer: true });
    fake.server.on('upgrade', (req, socket, head) => {
      if (!req.url?.startsWith('/socket')) return socket.destroy();
      fake.wss.handleUpgrade(req, socket, head, (ws) => fake.onSocket(ws));
    });
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    fake.base = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    return fake;
  }

  /** The Web API base for `SLACK_API_URL` / Bolt `clientOptions.slackApiUrl`. */
  get apiUrl(): string {
    return `${this.base}/api/`;
  }

  /** Sends events, commands and clicks to a Bolt HTTP receiver at this URL (`…/slack/events`). */
  useHttpReceiver(url: string): void {
    this.useHttpReceivers([url]);
  }

  /**
   * Spreads deliveries round-robin over several receivers, like a load balancer in front of several
   * processes; a receiver that refuses the connection (its process died) is passed over for the next.
   */
  useHttpReceivers(urls: readonly string[]): void {
    this.httpTargets = [...urls];
    this.nextTarget = 0;
  }

  /** Open Socket Mode connections. */
  socketCount(): number {
    return this.sockets.size;
  }

  /**
   * `chat.startStream` answers this error from now on (`unknown_method`, `not_allowed_token_type`,
   * `method_not_supported_for_channel_type` …), as in a workspace or for a token without streaming; null: streams again.
   */
  refuseStreaming(error: string | null): void {
    this.streamRefusal = error;
  }

  /**
   * Every streaming call that carries `chunks` answers this error from now on, as in a workspace that
   * does not take them yet; text-only streaming still works. Null: chunks are taken again.
   */
  refuseChunks(error: string | null): void {
    this.chunkRefusal = error;
  }

  /** The next call of `method` fails like this (queued; one failure per call). */
  failNext(method: string, failure: Failure): void {
    this.failures.set(method, [...(this.failures.get(method) ?? []), failure]);
  }

  /** The channel is archived: every post, edit and reaction there answers `is_archived` from now on. */
  archiveChannel(channel: string): void {
    this.closed.set(channel, 'is_archived');
  }

  /** The bot was removed from the channel: writes answer `not_in_channel`. */
  removeBot(channel: string): void {
    this.closed.set(channel, 'not_in_channel');
  }

  /** The channel was deleted: writes answer `channel_not_found`. */
  deleteChannel(channel: string): void {
    this.closed.set(channel, 'channel_not_found');
  }

  /**
   * From now on, calls of `method` are carried out (a message is stored) but their answers are held
   * back until `releaseAnswers`: the window between Slack accepting a post and the app hearing so.
   */
  holdAnswers(method: string): void {
    this.held = { method, waiting: [] };
  }

  /** Answers every held call and stops holding. */
  releaseAnswers(): void {
    const waiting = this.held?.waiting ?? [];
    this.held = null;
    for (const w of waiting) w();
  }

  /** Calls carried out whose answers are held back now. */
  heldAnswers(): number {
    return this.held?.waiting.length ?? 0;
  }

  callsOf(method: string): RecordedCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  /** Messages of a channel (optionally only one thread: its root and replies), oldest first. */
  messages(channel: string, threadTs?: string | null): StoredMessage[] {
    const all = this.channels.get(channel) ?? [];
    if (threadTs === undefined) return [...all];
    if (threadTs === null) return all.filter((m) => m.thread_ts === undefined || m.thread_ts === m.ts);
    return all.filter((m) => m.ts === threadTs || m.thread_ts === threadTs);
  }

  /** Texts the bot posted in a thread (or top level when null), oldest first. */
  botTexts(channel: string, threadTs: string | null): string[] {
    return this.messages(channel, threadTs)
      .filter((m) => m.user === this.botUserId && (threadTs === null || m.ts !== threadTs))
      .map((m) => m.text);
  }

  // ---------- drivers: what people (and other bots) do ----------

  /**
   * A person @mentions the bot: stored, then delivered as both `app_mention` and `message` twins
   * (`order: 'mention-only'`: the `app_mention` alone, as the outside perf harness sends it).
   */
  async mention(input: {
    user: string;
    channel: string;
    text: string;
    threadTs?: string;
    order?: 'mention-first' | 'message-first' | 'together' | 'mention-only';
    files?: FakeFile[];
  }): Promise<{ ts: string; deliveries: Delivery[] }> {
    const text = `<@${this.botUserId}> ${input.text}`;
    const files = this.fileFields(input.files);
    const msg = this.store({
      channel: input.channel,
      user: input.user,
      text,
      ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
      ...this.storedFiles(files),
    });
    const base = { ...this.personEvent(msg), ...files };
    const twins: Record<string, unknown>[] = [
      { ...base, type: 'app_mention', channel_type: undefined },
      { ...base, type: 'message' },
    ];
    if (input.order === 'mention-only') return { ts: msg.ts, deliveries: [await this.sendEvent(twins[0]!)] };
    if (input.order === 'message-first') twins.reverse();
    const deliveries =
      input.order === 'together'
        ? await Promise.all(twins.map((e) => this.sendEvent(e)))
        : [await this.sendEvent(twins[0]!), await this.sendEvent(twins[1]!)];
    return { ts: msg.ts, deliveries };
  }

  /** A person posts without mentioning the bot (a thread reply, a DM, a channel message). */
  async userMessage(input: {
    user: string;
    channel: string;
    text: string;
    threadTs?: string;
    files?: FakeFile[];
  }): Promise<{ ts: string; delivery: Delivery }> {
    const files = this.fileFields(input.files);
    const msg = this.store({
      channel: input.channel,
      user: input.user,
      text: input.text,
      ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
      ...this.storedFiles(files),
    });
    return { ts: msg.ts, delivery: await this.sendEvent({ ...this.personEvent(msg), ...files }) };
  }

  /** What history keeps of a message's file fields: its subtype and files. */
  private storedFiles(fields: Record<string, unknown>): { subtype?: string; files?: Record<string, unknown>[] } {
    return Array.isArray(fields.files)
      ? { subtype: 'file_share', files: fields.files as Record<string, unknown>[] }
      : {};
  }

  /**
   * What Slack adds to a message event with files: subtype `file_share` (on the `message` twin; the
   * `app_mention` twin keeps it too) and `files` with private URLs served by this fake.
   */
  private fileFields(files: FakeFile[] | undefined): Record<string, unknown> {
    if (!files || files.length === 0) return {};
    return {
      subtype: 'file_share',
      upload: false,
      display_as_bot: false,
      files: files.map((f) => {
        const id = `F${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`;
        this.files.set(id, f);
        const path = `${this.base}/files-pri/${this.teamId}-${id}/${encodeURIComponent(f.name)}`;
        return {
          id,
          created: Math.floor(Date.now() / 1000),
          timestamp: Math.floor(Date.now() / 1000),
          name: f.name,
          title: f.name,
          mimetype: f.mimetype,
          filetype: f.filetype ?? (f.name.split('.').pop() ?? '').toLowerCase(),
          pretty_type: f.mimetype,
          user: this.botUserId,
          mode: 'hosted',
          editable: false,
          is_external: false,
          external_type: '',
          size: f.bytes.length,
          url_private: path,
          url_private_download: `${this.base}/files-pri/${this.teamId}-${id}/download/${encodeURIComponent(f.name)}`,
          permalink: `https://fake.slack.com/files/${this.botUserId}/${id}/${f.name}`,
        };
      }),
    };
  }

  /**
   * `url_private`: the file with a valid `Authorization: Bearer xoxb-…`; without one, like Slack, a
   * redirect to the sign-in page (HTML), not an error status.
   */
  private serveFile(url: string, auth: string, res: ServerResponse): void {
    const id = /^\/files-pri\/[^/]+-(F[A-Z0-9]+)\//.exec(url)?.[1] ?? '';
    const token = auth.startsWith('Bearer ') ? auth.slice(7) : null;
    const file = this.files.get(id);
    const record = { id, token, status: 200 };
    this.fileDownloads.push(record);
    if (!token || !token.startsWith('xoxb-')) {
      record.status = 302;
      res.writeHead(302, { location: `${this.base}/signin?redir=${encodeURIComponent(url)}` }).end();
      return;
    }
    if (!file) {
      record.status = 404;
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>File not found</body></html>');
      return;
    }
    res
      .writeHead(200, { 'content-type': file.mimetype, 'content-length': String(file.bytes.length) })
      .end(Buffer.from(file.bytes));
  }

  /**
   * A person posts while the app is unreachable past Slack's redeliveries: the message is stored
   * (history shows it) but no event is ever delivered for it.
   */
  postUndelivered(input: { user: string; channel: string; text: string; threadTs?: string; files?: FakeFile[] }): {
    ts: string;
  } {
    const files = this.storedFiles(this.fileFields(input.files));
    const msg = this.store({
      channel: input.channel,
      user: input.user,
      text: input.text,
      ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
      ...files,
    });
    return { ts: msg.ts };
  }

  /**
   * A person opens a new thread in the app's assistant view (Agents & AI Apps): Slack creates the thread
   * in the DM with the app and delivers `assistant_thread_started`. `contextChannel` is the channel the
   * person was looking at. Later messages go in with `userMessage({ channel, threadTs })`.
   */
  async assistantThreadStarted(input: {
    user: string;
    channel: string;
    contextChannel?: string;
  }): Promise<{ threadTs: string; delivery: Delivery }> {
    const root = this.store({
      channel: input.channel,
      user: this.botUserId,
      bot_id: this.botId,
      text: 'New assistant thread',
    });
    const assistant_thread = {
      user_id: input.user,
      channel_id: input.channel,
      thread_ts: root.ts,
      context: {
        ...(input.contextChannel ? { channel_id: input.contextChannel } : {}),
        team_id: this.teamId,
        enterprise_id: null,
      },
    };
    return {
      threadTs: root.ts,
      delivery: await this.sendEvent({ type: 'assistant_thread_started', assistant_thread, event_ts: nextTs() }),
    };
  }

  /** Every status the app set on an assistant thread, in order ('' = cleared). */
  assistantStatuses(channel: string, threadTs: string): string[] {
    return this.callsOf('assistant.threads.setStatus')
      .filter((c) => c.error === null && c.args.channel_id === channel && c.args.thread_ts === threadTs)
      .map((c) => String(c.args.status));
  }

  /**
   * From now on the `agents.sessions.*` methods answer this error (`unknown_method`, `not_allowed_token_type`,
   * `missing_scope`), as in a workspace where the app is not an agent, and streams create no sessions; null: an agent again.
   */
  notAnAgent(error: string | null): void {
    this.agentRefusal = error;
  }

  /** The agent session of a thread (its root ts), if one exists. */
  agentSession(channel: string, threadTs: string): FakeAgentSession | undefined {
    return this.agentSessions.get(`${channel}/${threadTs}`);
  }

  /** Every status the thread's session had, in order ([] when it has none). */
  sessionStatuses(channel: string, threadTs: string): AgentSessionStatus[] {
    return [...(this.agentSession(channel, threadTs)?.history ?? [])];
  }

  /**
   * A person presses Slack's Stop on a thread's session, which Slack shows only while it is `processing`: Slack
   * stops the thread's streams in flight itself (appends and ends fail from then on), leaves the session's status
   * to the app, and delivers `agent_session_stopped` with the stopped streams' ts.
   */
  async stopAgentSession(input: {
    user: string;
    channel: string;
    threadTs: string;
  }): Promise<{ streams: string[]; delivery: Delivery }> {
    const session = this.agentSession(input.channel, input.threadTs);
    if (session?.status !== 'processing')
      throw new Error(
        `fake-slack: Slack shows Stop only on a processing session; ${input.channel}/${input.threadTs} is ${session?.status ?? 'not a session'}`,
      );
    const streams = this.messages(input.channel, input.threadTs).filter((m) => m.streaming);
    for (const m of streams) m.streaming = false;
    const event = {
      type: 'agent_session_stopped',
      channel: input.channel,
      user: input.user,
      thread_ts: input.threadTs,
      streaming_message_ts: streams.map((m) => m.ts),
      event_ts: nextTs(),
    };
    return { streams: streams.map((m) => m.ts), delivery: await this.sendEvent(event) };
  }

  /** Slack's checks of the agent-session part of a call (the status enum of `chat.stopStream`'s `session_status`); null: fine. */
  private sessionArgProblem(method: string, a: Record<string, unknown>): string | null {
    if (method === 'chat.stopStream' && a.session_status !== undefined && !isSessionStatus(a.session_status))
      return 'invalid_arguments';
    return null;
  }

  /** Sets a session's status, recording it when it changed. */
  private setSessionStatus(session: FakeAgentSession, status: AgentSessionStatus): void {
    if (session.status === status) return;
    session.status = status;
    session.history.push(status);
  }

  /**
   * What a successful stream call does to the thread's session, as Slack's bridge for streaming apps does: a
   * stream starting in a thread without one creates it (`processing`); `chat.stopStream` sets `session_status`
   * (default `active`).
   */
  private afterStreamCall(method: string, a: Record<string, unknown>, result: Record<string, unknown>): void {
    if (result.ok !== true || this.agentRefusal) return;
    const channel = String(a.channel ?? '');
    if (method === 'chat.startStream') {
      const key = `${channel}/${String(a.thread_ts ?? '')}`;
      if (!this.agentSessions.has(key))
        this.agentSessions.set(key, { status: 'processing', title: '', initiator: null, history: ['processing'] });
    }
    if (method === 'chat.stopStream') {
      const threadTs = this.find(channel, String(a.ts ?? ''))?.thread_ts;
      const session = threadTs ? this.agentSession(channel, threadTs) : undefined;
      if (session) this.setSessionStatus(session, isSessionStatus(a.session_status) ? a.session_status : 'active');
    }
  }

  /** `agents.sessions.setStatus` and `agents.sessions.rename`, checked like Slack: required arguments, the status enum, the thread root, known sessions. */
  private agentSessionCall(method: string, a: Record<string, unknown>): Record<string, unknown> {
    if (this.agentRefusal) return { ok: false, error: this.agentRefusal };
    const channel = a.channel_id;
    if (typeof channel !== 'string' || channel === '') return { ok: false, error: 'invalid_arguments' };
    if (!/^[CDG][A-Z0-9]{2,}$/.test(channel)) return { ok: false, error: 'channel_not_found' };
    const threadTs = typeof a.thread_ts === 'string' ? a.thread_ts : '';
    const root = this.find(channel, threadTs);
    if (!root) return { ok: false, error: 'thread_not_found' };
    // A session belongs to a thread: its root, never a reply in it.
    if (root.thread_ts !== undefined && root.thread_ts !== root.ts) return { ok: false, error: 'invalid_thread_ts' };
    const key = `${channel}/${threadTs}`;
    const title = a.title;
    if (title !== undefined && (typeof title !== 'string' || title.trim() === '' || title.length > 200))
      return { ok: false, error: 'invalid_arguments' };
    if (method === 'agents.sessions.rename') {
      if (typeof title !== 'string') return { ok: false, error: 'invalid_arguments' };
      const session = this.agentSessions.get(key);
      if (!session) return { ok: false, error: 'session_not_found' };
      session.title = title;
      return { ok: true, title };
    }
    // Free text ("is thinking…") is not a status.
    if (!isSessionStatus(a.status)) return { ok: false, error: 'invalid_arguments' };
    const initiator = a.initiator_user_id;
    if (initiator !== undefined && (typeof initiator !== 'string' || !/^[UW][A-Z0-9]{2,}$/.test(initiator)))
      return { ok: false, error: 'invalid_arguments' };
    const existing = this.agentSessions.get(key);
    if (existing) this.setSessionStatus(existing, a.status);
    // `title` and `initiator_user_id` count only when the call creates the session.
    else
      this.agentSessions.set(key, {
        status: a.status,
        title: typeof title === 'string' ? title : '',
        initiator: typeof initiator === 'string' ? initiator : null,
        history: [a.status],
      });
    const session = this.agentSessions.get(key)!;
    return { ok: true, status: session.status, title: session.title };
  }

  /** Another app's bot posts (Slack delivers it as a `message` with `bot_id`). */
  async otherBotMessage(input: { channel: string; text: string; threadTs?: string }): Promise<Delivery> {
    const msg = this.store({
      channel: input.channel,
      user: 'U0OTHERBOT',
      bot_id: 'B0OTHER01',
      text: input.text,
      ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    });
    return this.sendEvent({
      ...this.personEvent(msg),
      bot_id: msg.bot_id,
      app_id: 'A0OTHER01',
      client_msg_id: undefined,
    });
  }

  /** Delivers one event in an `event_callback` envelope; `retryNum` imitates Slack's redelivery. */
  async sendEvent(
    event: Record<string, unknown>,
    opts: { eventId?: string; retryNum?: number } = {},
  ): Promise<Delivery> {
    const eventId = opts.eventId ?? `Ev${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`;
    const body = {
      token: 'legacy-verification-token',
      team_id: this.teamId,
      api_app_id: this.appId,
      event,
      type: 'event_callback',
      event_id: eventId,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [
        {
          enterprise_id: null,
          team_id: this.teamId,
          user_id: this.botUserId,
          is_bot: true,
          is_enterprise_install: false,
        },
      ],
      is_ext_shared_channel: false,
    };
    const delivery = await this.deliver('events_api', body, JSON.stringify(body), 'application/json', opts.retryNum);
    this.deliveries.push({ event, eventId, delivery });
    return delivery;
  }

  /** A person runs a slash command; its response_url points at this fake. */
  async slashCommand(input: {
    command: string;
    text?: string;
    user: string;
    channel: string;
  }): Promise<Delivery & { responseId: string }> {
    const responseId = randomUUID();
    const fields = {
      token: 'legacy-verification-token',
      team_id: this.teamId,
      team_domain: 'fake',
      channel_id: input.channel,
      channel_name: 'general',
      user_id: input.user,
      user_name: input.user.toLowerCase(),
      command: input.command,
      text: input.text ?? '',
      api_app_id: this.appId,
      is_enterprise_install: 'false',
      response_url: `${this.base}/response/${responseId}`,
      trigger_id: this.trigger(input.user),
    };
    const delivery = await this.deliver(
      'slash_commands',
      fields,
      new URLSearchParams(fields).toString(),
      'application/x-www-form-urlencoded',
    );
    // An answer in the acknowledgement is shown like one sent to response_url: record it the same way.
    if (delivery.body.trim().startsWith('{'))
      this.responses.push({ id: responseId, body: JSON.parse(delivery.body) as Record<string, unknown> });
    return { ...delivery, responseId };
  }

  /** A person clicks the button `actionId` on a stored message. */
  async click(input: {
    user: string;
    channel: string;
    messageTs: string;
    actionId: string;
  }): Promise<Delivery & { responseId: string }> {
    const msg = this.find(input.channel, input.messageTs);
    if (!msg) throw new Error(`fake-slack: no message ${input.messageTs} in ${input.channel}`);
    const block = (msg.blocks ?? []).find((b) => (b as { type?: string }).type === 'actions') as
      { block_id?: string; elements: { action_id: string; value?: string; text: unknown }[] } | undefined;
    const button = block?.elements.find((e) => e.action_id === input.actionId);
    if (!button) throw new Error(`fake-slack: message ${input.messageTs} has no button ${input.actionId}`);
    const responseId = randomUUID();
    const payload = {
      type: 'block_actions',
      user: { id: input.user, username: input.user.toLowerCase(), team_id: this.teamId },
      api_app_id: this.appId,
      token: 'legacy-verification-token',
      container: {
        type: 'message',
        message_ts: msg.ts,
        channel_id: msg.channel,
        is_ephemeral: false,
        ...(msg.thread_ts ? { thread_ts: msg.thread_ts } : {}),
      },
      trigger_id: this.trigger(input.user),
      team: { id: this.teamId, domain: 'fake' },
      channel: { id: msg.channel, name: 'general' },
      message: {
        type: 'message',
        user: msg.user,
        ts: msg.ts,
        text: msg.text,
        blocks: msg.blocks,
        ...(msg.thread_ts ? { thread_ts: msg.thread_ts } : {}),
        ...(msg.bot_id ? { bot_id: msg.bot_id } : {}),
      },
      response_url: `${this.base}/response/${responseId}`,
      actions: [buttonAction(button, block?.block_id)],
    };
    const delivery = await this.deliverInteractive(payload);
    return { ...delivery, responseId };
  }

  /** A person clicks a button of an ephemeral reply (the body POSTed to a response_url), as Slack delivers it. */
  async clickInReply(input: {
    user: string;
    channel: string;
    responseId: string;
    actionId: string;
  }): Promise<Delivery & { responseId: string }> {
    const reply = [...this.responses].reverse().find((r) => r.id === input.responseId);
    const blocks = (reply?.body.blocks ?? []) as {
      type?: string;
      block_id?: string;
      elements?: { action_id: string; value?: string; text: unknown }[];
    }[];
    const block = blocks.find((b) => b.type === 'actions' && b.elements?.some((e) => e.action_id === input.actionId));
    const button = block?.elements?.find((e) => e.action_id === input.actionId);
    if (!button) throw new Error(`fake-slack: reply ${input.responseId} has no button ${input.actionId}`);
    const responseId = randomUUID();
    const ts = nextTs();
    const payload = {
      type: 'block_actions',
      user: { id: input.user, username: input.user.toLowerCase(), team_id: this.teamId },
      api_app_id: this.appId,
      token: 'legacy-verification-token',
      container: { type: 'message', message_ts: ts, channel_id: input.channel, is_ephemeral: true },
      trigger_id: this.trigger(input.user),
      team: { id: this.teamId, domain: 'fake' },
      channel: { id: input.channel, name: 'general' },
      response_url: `${this.base}/response/${responseId}`,
      actions: [buttonAction(button, block?.block_id)],
    };
    const delivery = await this.deliverInteractive(payload);
    return { ...delivery, responseId };
  }

  /**
   * `user` clicks the button `actionId` of the newest ephemeral message shown to them that has it, as Slack delivers a
   * click on an ephemeral message: `container.is_ephemeral`, and no `message` (Slack keeps ephemeral messages nowhere).
   */
  async clickInEphemeral(input: { user: string; actionId: string }): Promise<Delivery & { responseId: string }> {
    type Block = {
      type?: string;
      block_id?: string;
      elements?: { action_id: string; value?: string; text: unknown }[];
    };
    const shown = [...this.ephemeralMessages]
      .reverse()
      .find(
        (m) =>
          m.user === input.user &&
          ((m.blocks ?? []) as Block[]).some((b) => b.elements?.some((e) => e.action_id === input.actionId)),
      );
    if (!shown) throw new Error(`fake-slack: no ephemeral message to ${input.user} has a button ${input.actionId}`);
    const block = (shown.blocks as Block[]).find((b) => b.elements?.some((e) => e.action_id === input.actionId))!;
    const button = block.elements!.find((e) => e.action_id === input.actionId)!;
    const responseId = randomUUID();
    const payload = {
      type: 'block_actions',
      user: { id: input.user, username: input.user.toLowerCase(), team_id: this.teamId },
      api_app_id: this.appId,
      token: 'legacy-verification-token',
      container: {
        type: 'message',
        message_ts: nextTs(),
        channel_id: shown.channel,
        is_ephemeral: true,
        ...(shown.thread_ts ? { thread_ts: shown.thread_ts } : {}),
      },
      trigger_id: this.trigger(input.user),
      team: { id: this.teamId, domain: 'fake' },
      channel: { id: shown.channel, name: 'general' },
      response_url: `${this.base}/response/${responseId}`,
      actions: [buttonAction(button, block.block_id)],
    };
    const delivery = await this.deliverInteractive(payload);
    return { ...delivery, responseId };
  }

  /** A person opens the app's Home tab: `app_home_opened` (Slack sends it on every visit). */
  async openHome(user: string): Promise<Delivery> {
    const id = [...this.views.values()].find((v) => v.user === user && v.view.type === 'home')?.id;
    return this.sendEvent({
      type: 'app_home_opened',
      user,
      channel: `D0${user.slice(1, 9)}`,
      tab: 'home',
      event_ts: nextTs(),
      ...(id ? { view: { id, ...this.views.get(id)!.view } } : {}),
    });
  }

  /** The Home view published for a person, if any. */
  homeOf(user: string): StoredView | undefined {
    return [...this.views.values()].find((v) => v.user === user && v.view.type === 'home');
  }

  /** The modal most recently opened for a person, if any. */
  modalOf(user: string): StoredView | undefined {
    return [...this.views.values()].reverse().find((v) => v.user === user && v.view.type === 'modal');
  }

  /** A person clicks a button (a block's accessory or an actions element) in a view. */
  async clickInView(input: { user: string; viewId: string; actionId: string }): Promise<Delivery> {
    const stored = this.views.get(input.viewId);
    if (!stored) throw new Error(`fake-slack: no view ${input.viewId}`);
    type B = {
      type?: string;
      block_id?: string;
      accessory?: { action_id: string; value?: string; text: unknown };
      elements?: { action_id: string; value?: string; text: unknown }[];
    };
    let found: { block: B; button: { action_id: string; value?: string; text: unknown } } | null = null;
    for (const block of stored.view.blocks as B[]) {
      const button =
        block.accessory?.action_id === input.actionId
          ? block.accessory
          : block.elements?.find((e) => e.action_id === input.actionId);
      if (button) found = { block, button };
    }
    if (!found) throw new Error(`fake-slack: view ${input.viewId} has no button ${input.actionId}`);
    const payload = {
      type: 'block_actions',
      user: { id: input.user, username: input.user.toLowerCase(), team_id: this.teamId },
      api_app_id: this.appId,
      token: 'legacy-verification-token',
      container: { type: 'view', view_id: stored.id },
      trigger_id: this.trigger(input.user),
      team: { id: this.teamId, domain: 'fake' },
      view: { id: stored.id, team_id: this.teamId, ...stored.view },
      actions: [buttonAction(found.button, found.block.block_id)],
    };
    return this.deliverInteractive(payload);
  }

  /**
   * A person submits a modal: each input keeps its prefilled value unless `values` (by block id)
   * says otherwise. The answer is the app's acknowledgement body (`response_action` and the like);
   * an `update` replaces the stored view like Slack does.
   */
  async submitView(input: {
    user: string;
    viewId: string;
    values?: Record<string, string | readonly string[]>;
  }): Promise<{ delivery: Delivery; response: Record<string, unknown> | null }> {
    const stored = this.views.get(input.viewId);
    if (!stored) throw new Error(`fake-slack: no view ${input.viewId}`);
    const state: Record<string, Record<string, unknown>> = {};
    for (const block of stored.view.blocks as { type?: string; block_id?: string; element?: ViewInputElement }[]) {
      if (block.type !== 'input' || !block.block_id || !block.element) continue;
      const e = block.element;
      state[block.block_id] = { [e.action_id]: inputState(e, input.values?.[block.block_id]) };
    }
    const payload = {
      type: 'view_submission',
      team: { id: this.teamId, domain: 'fake' },
      user: { id: input.user, username: input.user.toLowerCase(), team_id: this.teamId },
      api_app_id: this.appId,
      token: 'legacy-verification-token',
      trigger_id: this.trigger(input.user),
      view: { id: stored.id, team_id: this.teamId, ...stored.view, state: { values: state }, hash: randomUUID() },
      response_urls: [],
    };
    const delivery = await this.deliverInteractive(payload);
    const response = delivery.body.trim() === '' ? null : (JSON.parse(delivery.body) as Record<string, unknown>);
    if (response?.response_action === 'update' && response.view) {
      stored.view = response.view as StoredView['view'];
      stored.updates++;
    }
    if (response === null || response.response_action === 'clear') this.views.delete(stored.id);
    return { delivery, response };
  }

  /** Asks Socket Mode clients to reconnect, as Slack does every few hours. */
  disconnectSockets(): void {
    for (const ws of this.sockets) ws.send(JSON.stringify({ type: 'disconnect', reason: 'refresh_requested' }));
  }

  /** Resolves once every echo event sent so far was acknowledged. */
  async settle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  async close(): Promise<void> {
    await Promise.race([this.settle(), new Promise((r) => setTimeout(r, 500))]);
    for (const ws of this.sockets) ws.terminate();
    this.agent.destroy();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // ---------- delivery ----------

  /** A trigger_id for an interaction of `user`; views.open takes it once, within 3 s. */
  private trigger(user: string): string {
    const id = `${Date.now()}.${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    this.triggers.set(id, user);
    return id;
  }

  private parseView(raw: unknown): StoredView['view'] | null {
    const view = typeof raw === 'string' ? (JSON.parse(raw) as unknown) : raw;
    if (!view || typeof view !== 'object' || !Array.isArray((view as { blocks?: unknown }).blocks)) return null;
    return view as StoredView['view'];
  }

  /** What Slack refuses in a view: too many blocks, an input without a label, a modal without a title. */
  private viewProblem(view: StoredView['view']): string | null {
    if (view.blocks.length > 100) return 'more than 100 blocks';
    if (view.type === 'modal' && !view.title) return 'a modal needs a title';
    if (view.type === 'modal' && ((view.title as { text?: string }).text ?? '').length > 24)
      return 'a modal title is at most 24 characters';
    for (const b of view.blocks as {
      type?: string;
      label?: { text?: string };
      element?: ViewInputElement;
      text?: { text?: string };
    }[]) {
      if (b.type === 'input' && (!b.label || !b.element)) return 'input block needs a label and an element';
      if (b.type === 'input' && inputProblem(b)) return inputProblem(b);
      if (b.type === 'section' && (b.text?.text ?? '').length > MAX_SECTION_TEXT)
        return 'section text longer than 3000';
    }
    return blockProblem(view.blocks.filter((b) => (b as { type?: string }).type !== 'input'));
  }

  /** Delivers an interactive payload as Slack does: form-encoded, in a `payload` field. */
  private deliverInteractive(payload: unknown): Promise<Delivery> {
    return this.deliver(
      'interactive',
      payload,
      new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
      'application/x-www-form-urlencoded',
    );
  }

  private async deliver(
    kind: 'events_api' | 'slash_commands' | 'interactive',
    payload: unknown,
    raw: string,
    contentType: string,
    retryNum?: number,
  ): Promise<Delivery> {
    const ws = [...this.sockets][0];
    if (ws) {
      const envelopeId = randomUUID();
      const started = performance.now();
      const acked = new Promise<string>((resolve) => this.acks.set(envelopeId, resolve));
      ws.send(
        JSON.stringify({
          envelope_id: envelopeId,
          type: kind,
          accepts_response_payload: kind !== 'events_api',
          payload,
          ...(retryNum ? { retry_attempt: retryNum, retry_reason: 'timeout' } : { retry_attempt: 0, retry_reason: '' }),
        }),
      );
      const body = await acked;
      return { status: 200, body, ms: performance.now() - started };
    }
    if (this.httpTargets.length === 0)
      throw new Error('fake-slack: no Socket Mode connection and no HTTP receiver to deliver to');
    const headers: Record<string, string> = {
      'content-type': contentType,
      ...signSlackRequest(this.signingSecret, raw),
    };
    if (retryNum)
      Object.assign(headers, { 'x-slack-retry-num': String(retryNum), 'x-slack-retry-reason': 'http_timeout' });
    const first = this.nextTarget++ % this.httpTargets.length;
    let resetOnce = false;
    for (let i = 0; ; i++) {
      const target = this.httpTargets[(first + i) % this.httpTargets.length]!;
      try {
        return await httpPost(target, raw, headers, this.agent);
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        // A kept-alive socket the receiver closed while idle is reset on reuse before the request was read: sent
        // again once on a fresh socket, as Slack delivers again (the event id is the same, so nothing is doubled).
        if (code === 'ECONNRESET' && !resetOnce) {
          resetOnce = true;
          i--;
          continue;
        }
        if (i + 1 >= this.httpTargets.length || (code !== 'ECONNREFUSED' && code !== 'ECONNRESET')) throw err;
      }
    }
  }

  private onSocket(ws: WebSocket): void {
    this.sockets.add(ws);
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data)) as { envelope_id?: string; payload?: unknown };
      const resolve = msg.envelope_id ? this.acks.get(msg.envelope_id) : undefined;
      if (resolve && msg.envelope_id) {
        this.acks.delete(msg.envelope_id);
        resolve(msg.payload === undefined ? '' : JSON.stringify(msg.payload));
      }
    });
    ws.on('close', () => this.sockets.delete(ws));
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.sockets.size,
        debug_info: { host: 'fake', approximate_connection_time: 18060 },
        connection_info: { app_id: this.appId },
      }),
    );
  }

  private echoEvent(event: Record<string, unknown>): void {
    if (!this.echo || (this.sockets.size === 0 && this.httpTargets.length === 0)) return;
    const p = this.sendEvent(event).catch(() => undefined);
    this.inflight.add(p);
    void p.finally(() => this.inflight.delete(p));
  }

  // ---------- storage ----------

  private store(m: {
    channel: string;
    user: string;
    text: string;
    thread_ts?: string;
    bot_id?: string;
    blocks?: unknown[];
    metadata?: StoredMessage['metadata'];
    streaming?: boolean;
    subtype?: string;
    files?: Record<string, unknown>[];
  }): StoredMessage {
    const msg: StoredMessage = { ...m, ts: nextTs(), reactions: new Set(), reply_count: 0 };
    const list = this.channels.get(m.channel) ?? [];
    list.push(msg);
    this.channels.set(m.channel, list);
    if (m.thread_ts) {
      const root = this.find(m.channel, m.thread_ts);
      if (root) {
        root.thread_ts = root.ts;
        root.reply_count++;
      }
    }
    return msg;
  }

  /** A streaming call's `chunks` as Slack reads them, or the error it answers (also a workspace refusing chunks). */
  private chunksOf(a: Record<string, unknown>): ParsedChunks | { error: string } {
    if (a.chunks !== undefined && this.chunkRefusal) return { error: this.chunkRefusal };
    return parseChunks(a.chunks);
  }

  private find(channel: string, ts: string): StoredMessage | undefined {
    return this.channels.get(channel)?.find((m) => m.ts === ts);
  }

  private personEvent(msg: StoredMessage): Record<string, unknown> {
    const root = msg.thread_ts ? this.find(msg.channel, msg.thread_ts) : undefined;
    return {
      type: 'message',
      client_msg_id: randomUUID(),
      text: msg.text,
      user: msg.user,
      ts: msg.ts,
      team: this.teamId,
      blocks: richText(msg.text),
      channel: msg.channel,
      event_ts: msg.ts,
      channel_type: channelTypeOf(msg.channel),
      ...(msg.thread_ts ? { thread_ts: msg.thread_ts, parent_user_id: root?.user } : {}),
    };
  }

  private botEcho(msg: StoredMessage): Record<string, unknown> {
    return {
      type: 'message',
      user: this.botUserId,
      bot_id: this.botId,
      app_id: this.appId,
      text: msg.text,
      ...(msg.blocks ? { blocks: msg.blocks } : {}),
      ts: msg.ts,
      team: this.teamId,
      bot_profile: { id: this.botId, app_id: this.appId, name: 'errand' },
      ...(msg.thread_ts && msg.thread_ts !== msg.ts
        ? { thread_ts: msg.thread_ts, parent_user_id: this.find(msg.channel, msg.thread_ts)?.user }
        : {}),
      channel: msg.channel,
      event_ts: msg.ts,
      channel_type: channelTypeOf(msg.channel),
    };
  }

  /** A stored message as Slack's history methods return it. */
  private wire(
    { reactions: _r, reply_count, channel, metadata, ...m }: StoredMessage,
    withMetadata = false,
  ): Record<string, unknown> {
    const isParent = m.thread_ts === m.ts;
    const app =
      m.bot_id === this.botId
        ? { app_id: this.appId, bot_profile: { id: this.botId, app_id: this.appId, name: 'errand' } }
        : { app_id: 'A0OTHER01', bot_profile: { id: m.bot_id, app_id: 'A0OTHER01', name: 'otherbot' } };
    return {
      type: 'message',
      ...m,
      ...(m.bot_id ? app : { client_msg_id: randomUUID() }),
      ...(isParent ? { reply_count } : {}),
      ...(m.thread_ts && !isParent ? { parent_user_id: this.find(channel, m.thread_ts)?.user } : {}),
      ...(withMetadata && metadata ? { metadata } : {}),
    };
  }

  /** One page of `items` (oldest first) in `order`, after the request's cursor: `next_ts:<ts>` in base64, like Slack's. */
  private page(
    items: StoredMessage[],
    a: Record<string, unknown>,
    order: 'asc' | 'desc',
  ): { items: StoredMessage[]; next: string | null } | { error: string } {
    const limit = a.limit === undefined ? 100 : Number(a.limit);
    if (!Number.isInteger(limit) || limit < 1) return { error: 'invalid_limit' };
    const size = Math.min(limit, this.maxPageSize);
    const sorted = order === 'asc' ? items : [...items].reverse();
    let start = 0;
    if (typeof a.cursor === 'string' && a.cursor !== '') {
      const decoded = /^next_ts:(\d+\.\d+)$/.exec(Buffer.from(a.cursor, 'base64').toString('utf8'));
      if (!decoded) return { error: 'invalid_cursor' };
      start = sorted.findIndex((m) => m.ts === decoded[1]);
      if (start < 0) return { error: 'invalid_cursor' };
    }
    const slice = sorted.slice(start, start + size);
    const following = sorted[start + size];
    return { items: slice, next: following ? Buffer.from(`next_ts:${following.ts}`).toString('base64') : null };
  }

  // ---------- Web API ----------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.uploads.isUploadPath(req.url ?? '')) return this.uploads.receive(req, res);
    const raw = await readBody(req);
    const url = req.url ?? '';
    if (url.startsWith('/files-pri/')) return this.serveFile(url, String(req.headers.authorization ?? ''), res);
    if (url.startsWith('/signin')) {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Sign in to Slack</body></html>');
      return;
    }
    if (url.startsWith('/response/')) {
      this.responses.push({
        id: url.slice('/response/'.length),
        body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {},
      });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    const method = url.startsWith('/api/') ? url.slice('/api/'.length).split('?')[0]! : '';
    const args = parseArgs(raw, String(req.headers['content-type'] ?? ''));
    const auth = String(req.headers.authorization ?? '');
    const call: RecordedCall = {
      method,
      args,
      token: auth.startsWith('Bearer ') ? auth.slice(7) : null,
      at: Date.now(),
      status: 200,
      error: null,
    };
    this.calls.push(call);
    const answer = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
      call.status = status;
      if (body.ok === false) call.error = String(body.error);
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
      this.onCall?.(call);
    };
    if (!call.token) return answer(200, { ok: false, error: 'not_authed' });
    const failure = this.failures.get(method)?.shift();
    if (failure) {
      if ('status' in failure)
        return answer(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(failure.retryAfter) });
      return answer(200, { ok: false, error: failure.error });
    }
    if (method === 'chat.postMessage' && this.rateLimited(String(args.channel ?? '')))
      return answer(429, { ok: false, error: 'ratelimited' }, { 'retry-after': '1' });
    const result = this.api(method, args, call.token);
    this.afterStreamCall(method, args, result);
    const held = this.held;
    if (held && held.method === method) await new Promise<void>((resolve) => held.waiting.push(resolve));
    if (res.destroyed) return;
    answer(200, result);
  }

  /** What the upload endpoints use of this fake: its storage, its refusals, its echo of the bot's file_share message. */
  private uploadHost(): UploadHost {
    const fake = this;
    return {
      get base() {
        return fake.base;
      },
      get teamId() {
        return fake.teamId;
      },
      get botUserId() {
        return fake.botUserId;
      },
      refusal: (channel) => fake.closed.get(channel) ?? null,
      threadExists: (channel, threadTs) => fake.find(channel, threadTs) !== undefined,
      share: ({ channel, threadTs, text, files }) => {
        const msg = fake.store({
          channel,
          user: fake.botUserId,
          text,
          ...(threadTs ? { thread_ts: threadTs } : {}),
          subtype: 'file_share',
          files,
        });
        const root = threadTs ? fake.find(channel, threadTs) : undefined;
        fake.echoEvent({
          type: 'message',
          ...fileShareFields(text, files),
          user: fake.botUserId,
          ts: msg.ts,
          channel,
          event_ts: msg.ts,
          channel_type: channelTypeOf(channel),
          ...(threadTs ? { thread_ts: threadTs, parent_user_id: root?.user } : {}),
        });
        return msg.ts;
      },
      serve: (id, file) => void fake.files.set(id, file),
    };
  }

  /** Token bucket per channel, as Slack enforces about one message per second. */
  private rateLimited(channel: string): boolean {
    if (!this.rateLimit) return false;
    const now = performance.now();
    const b = this.buckets.get(channel) ?? { tokens: this.rateLimit.burst, at: now };
    b.tokens = Math.min(this.rateLimit.burst, b.tokens + ((now - b.at) / 1000) * this.rateLimit.perSecond);
    b.at = now;
    this.buckets.set(channel, b);
    if (b.tokens < 1) return true;
    b.tokens -= 1;
    return false;
  }

  private api(method: string, a: Record<string, unknown>, token: string): Record<string, unknown> {
    const channel = String(a.channel ?? '');
    const ts = String(a.ts ?? a.timestamp ?? '');
    const validChannel = /^[CDG][A-Z0-9]{2,}$/.test(channel);
    const refusal = this.closed.get(channel);
    if (refusal && /^(chat\.|reactions\.)/.test(method)) return { ok: false, error: refusal };
    const sessionProblem = this.sessionArgProblem(method, a);
    if (sessionProblem) return { ok: false, error: sessionProblem };
    const fileAnswer = this.uploads.api(method, a);
    if (fileAnswer) return fileAnswer;
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          url: 'https://fake.slack.com/',
          team: 'Fake',
          user: 'errand',
          team_id: this.teamId,
          user_id: this.botUserId,
          bot_id: this.botId,
          is_enterprise_install: false,
        };
      case 'apps.connections.open':
        if (!token.startsWith('xapp-')) return { ok: false, error: 'invalid_auth' };
        return {
          ok: true,
          url: `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}/socket?ticket=${randomUUID()}`,
        };
      case 'chat.postMessage': {
        if (!validChannel) return { ok: false, error: 'channel_not_found' };
        const blocks = Array.isArray(a.blocks) ? (a.blocks as unknown[]) : undefined;
        const text = typeof a.text === 'string' ? a.text : '';
        if (text.trim() === '' && (!blocks || blocks.length === 0)) return { ok: false, error: 'no_text' };
        if (blocks && blockProblem(blocks))
          return { ok: false, error: 'invalid_blocks', errors: [blockProblem(blocks)] };
        const threadTs = typeof a.thread_ts === 'string' && a.thread_ts !== '' ? a.thread_ts : undefined;
        if (threadTs && !this.find(channel, threadTs)) return { ok: false, error: 'thread_not_found' };
        const metadata = metadataOf(a.metadata);
        if (metadata === 'invalid') return { ok: false, error: 'invalid_metadata_format' };
        const msg = this.store({
          channel,
          user: this.botUserId,
          bot_id: this.botId,
          text: text.slice(0, MAX_TEXT),
          ...(threadTs ? { thread_ts: threadTs } : {}),
          ...(blocks ? { blocks } : {}),
          ...(metadata ? { metadata } : {}),
        });
        this.echoEvent(this.botEcho(msg));
        return {
          ok: true,
          channel,
          ts: msg.ts,
          message: {
            type: 'message',
            text: msg.text,
            user: this.botUserId,
            bot_id: this.botId,
            ts: msg.ts,
            ...(threadTs ? { thread_ts: threadTs } : {}),
          },
        };
      }
      case 'chat.startStream': {
        if (this.streamRefusal) return { ok: false, error: this.streamRefusal };
        if (!validChannel) return { ok: false, error: 'channel_not_found' };
        const threadTs = typeof a.thread_ts === 'string' && a.thread_ts !== '' ? a.thread_ts : undefined;
        // Streamed messages answer a request: in a thread, and outside DMs for a named recipient.
        if (!threadTs) return { ok: false, error: 'invalid_arguments' };
        if (!this.find(channel, threadTs)) return { ok: false, error: 'thread_not_found' };
        if (
          !channel.startsWith('D') &&
          (typeof a.recipient_user_id !== 'string' || typeof a.recipient_team_id !== 'string')
        )
          return { ok: false, error: 'invalid_arguments' };
        if (!validDisplayMode(a.task_display_mode)) return { ok: false, error: 'invalid_arguments' };
        const chunks = this.chunksOf(a);
        if ('error' in chunks) return { ok: false, error: chunks.error };
        const markdown = (typeof a.markdown_text === 'string' ? a.markdown_text : '') + chunks.markdown;
        if (markdown.length > MAX_MARKDOWN_TEXT) return { ok: false, error: 'msg_too_long' };
        const msg = this.store({
          channel,
          user: this.botUserId,
          bot_id: this.botId,
          text: markdown,
          thread_ts: threadTs,
          streaming: true,
        });
        if (a.task_display_mode) msg.taskDisplayMode = a.task_display_mode;
        applyChunks(msg, chunks);
        this.echoEvent(this.botEcho(msg));
        return { ok: true, channel, ts: msg.ts };
      }
      case 'chat.appendStream':
      case 'chat.stopStream': {
        const msg = this.find(channel, ts);
        if (!msg) return { ok: false, error: 'message_not_found' };
        if (!msg.streaming) return { ok: false, error: 'message_not_in_streaming_state' };
        const chunks = this.chunksOf(a);
        if ('error' in chunks) return { ok: false, error: chunks.error };
        const markdown = typeof a.markdown_text === 'string' ? a.markdown_text : '';
        if (method === 'chat.appendStream' && markdown === '' && chunks.raw.length === 0)
          return { ok: false, error: 'invalid_arguments' };
        if (markdown.length > MAX_MARKDOWN_TEXT || chunks.markdown.length > MAX_MARKDOWN_TEXT)
          return { ok: false, error: 'msg_too_long' };
        msg.text += markdown + chunks.markdown;
        applyChunks(msg, chunks);
        if (method === 'chat.stopStream') msg.streaming = false;
        return { ok: true, channel, ts };
      }
      case 'chat.update': {
        const msg = this.find(channel, ts);
        if (!msg) return { ok: false, error: 'message_not_found' };
        if (msg.user !== this.botUserId) return { ok: false, error: 'cant_update_message' };
        const blocks = Array.isArray(a.blocks) ? (a.blocks as unknown[]) : undefined;
        if (blocks && blockProblem(blocks))
          return { ok: false, error: 'invalid_blocks', errors: [blockProblem(blocks)] };
        const text = typeof a.text === 'string' ? a.text : msg.text;
        if (text.trim() === '' && !(blocks ?? msg.blocks)?.length) return { ok: false, error: 'no_text' };
        const previous = this.botEcho(msg);
        msg.text = text.slice(0, MAX_TEXT);
        if (blocks) msg.blocks = blocks.length > 0 ? blocks : undefined;
        this.echoEvent({
          type: 'message',
          subtype: 'message_changed',
          hidden: true,
          channel,
          ts: nextTs(),
          event_ts: nextTs(),
          channel_type: channelTypeOf(channel),
          message: { ...this.botEcho(msg), edited: { user: this.botUserId, ts: nextTs() } },
          previous_message: previous,
        });
        return { ok: true, channel, ts, text: msg.text };
      }
      case 'chat.delete': {
        const list = this.channels.get(channel) ?? [];
        const i = list.findIndex((m) => m.ts === ts);
        if (i < 0) return { ok: false, error: 'message_not_found' };
        const [gone] = list.splice(i, 1);
        this.echoEvent({
          type: 'message',
          subtype: 'message_deleted',
          hidden: true,
          channel,
          ts: nextTs(),
          deleted_ts: ts,
          event_ts: nextTs(),
          channel_type: channelTypeOf(channel),
          previous_message: this.botEcho(gone!),
        });
        return { ok: true, channel, ts };
      }
      case 'chat.postEphemeral': {
        if (!validChannel) return { ok: false, error: 'channel_not_found' };
        const text = typeof a.text === 'string' ? a.text : '';
        if (text.trim() === '' && !Array.isArray(a.blocks)) return { ok: false, error: 'no_text' };
        this.ephemerals.push({
          channel,
          user: String(a.user ?? ''),
          text,
          ...(typeof a.thread_ts === 'string' ? { thread_ts: a.thread_ts } : {}),
        });
        this.ephemeralMessages.push({
          channel,
          user: String(a.user ?? ''),
          text,
          ...(typeof a.thread_ts === 'string' ? { thread_ts: a.thread_ts } : {}),
          ...(Array.isArray(a.blocks) ? { blocks: a.blocks } : {}),
        });
        return { ok: true, message_ts: nextTs() };
      }
      case 'reactions.add':
      case 'reactions.remove': {
        const msg = this.find(channel, ts);
        const name = String(a.name ?? '');
        if (!msg) return { ok: false, error: 'message_not_found' };
        if (method === 'reactions.add') {
          if (msg.reactions.has(name)) return { ok: false, error: 'already_reacted' };
          msg.reactions.add(name);
        } else if (!msg.reactions.delete(name)) return { ok: false, error: 'no_reaction' };
        return { ok: true };
      }
      case 'conversations.replies': {
        if (!validChannel) return { ok: false, error: 'channel_not_found' };
        const root = this.find(channel, ts);
        if (!root) return { ok: false, error: 'thread_not_found' };
        const [parent, ...all] = this.messages(channel, root.thread_ts ?? root.ts);
        const inclusive = a.inclusive === true || a.inclusive === 'true' || a.inclusive === '1';
        const replies =
          a.oldest === undefined
            ? all
            : all.filter((m) => (inclusive ? Number(m.ts) >= Number(a.oldest) : Number(m.ts) > Number(a.oldest)));
        // Slack repeats the parent at the top of every page, whatever `oldest` says; the cursor walks the replies.
        const page = this.page(replies, a, 'asc');
        if ('error' in page) return { ok: false, error: page.error };
        return {
          ok: true,
          messages: [parent!, ...page.items].map((m) => this.wire(m, wantsMetadata(a))),
          has_more: page.next !== null,
          ...(page.next ? { response_metadata: { next_cursor: page.next } } : {}),
        };
      }
      case 'conversations.history': {
        if (!validChannel) return { ok: false, error: 'channel_not_found' };
        const inclusive = a.inclusive === true || a.inclusive === 'true' || a.inclusive === '1';
        const after = (m: StoredMessage, bound: unknown, strict: boolean) =>
          bound === undefined || (strict ? Number(m.ts) > Number(bound) : Number(m.ts) >= Number(bound));
        const inRange = this.messages(channel, null).filter(
          (m) => after(m, a.oldest, !inclusive) && (a.latest === undefined || !after(m, a.latest, inclusive)),
        );
        const page = this.page(inRange, a, 'desc');
        if ('error' in page) return { ok: false, error: page.error };
        return {
          ok: true,
          messages: page.items.map((m) => this.wire(m, wantsMetadata(a))),
          has_more: page.next !== null,
          pin_count: 0,
          ...(page.next ? { response_metadata: { next_cursor: page.next } } : {}),
        };
      }
      case 'views.publish': {
        const view = this.parseView(a.view);
        const user = String(a.user_id ?? '');
        if (!view || view.type !== 'home') return { ok: false, error: 'invalid_arguments' };
        if (this.viewProblem(view))
          return { ok: false, error: 'invalid_arguments', response_metadata: { messages: [this.viewProblem(view)] } };
        const existing = this.homeOf(user);
        const id = existing?.id ?? `V${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`;
        this.views.set(id, { id, user, view, updates: (existing?.updates ?? 0) + 1 });
        return { ok: true, view: { id, ...view } };
      }
      case 'views.open': {
        const trigger = String(a.trigger_id ?? '');
        const user = this.triggers.get(trigger);
        if (user === undefined || !this.triggers.delete(trigger)) return { ok: false, error: 'invalid_trigger_id' };
        if (Date.now() - Number(trigger.split('.')[0]) > 3000) return { ok: false, error: 'expired_trigger_id' };
        const view = this.parseView(a.view);
        if (!view || view.type !== 'modal') return { ok: false, error: 'invalid_arguments' };
        if (this.viewProblem(view))
          return { ok: false, error: 'invalid_arguments', response_metadata: { messages: [this.viewProblem(view)] } };
        const id = `V${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`;
        this.views.set(id, { id, user, view, updates: 1 });
        return { ok: true, view: { id, ...view } };
      }
      case 'views.update': {
        const stored = this.views.get(String(a.view_id ?? ''));
        const view = this.parseView(a.view);
        if (!stored) return { ok: false, error: 'not_found' };
        if (!view) return { ok: false, error: 'invalid_arguments' };
        stored.view = view;
        stored.updates++;
        return { ok: true, view: { id: stored.id, ...view } };
      }
      case 'assistant.threads.setStatus':
      case 'assistant.threads.setSuggestedPrompts':
      case 'assistant.threads.setTitle': {
        // Slack takes these only for a thread in a DM with the app (the assistant view).
        const channelId = String(a.channel_id ?? '');
        const threadTs = String(a.thread_ts ?? '');
        if (!/^D[A-Z0-9]{2,}$/.test(channelId)) return { ok: false, error: 'channel_not_found' };
        if (!this.find(channelId, threadTs)) return { ok: false, error: 'invalid_thread_ts' };
        if (method === 'assistant.threads.setStatus' && typeof a.status !== 'string')
          return { ok: false, error: 'invalid_arguments' };
        if (method === 'assistant.threads.setTitle' && (typeof a.title !== 'string' || a.title.trim() === ''))
          return { ok: false, error: 'invalid_arguments' };
        if (method === 'assistant.threads.setSuggestedPrompts') {
          const prompts = Array.isArray(a.prompts) ? (a.prompts as { title?: unknown; message?: unknown }[]) : [];
          const valid =
            prompts.length >= 1 &&
            prompts.length <= 4 &&
            prompts.every(
              (p) => typeof p.title === 'string' && p.title !== '' && typeof p.message === 'string' && p.message !== '',
            );
          if (!valid) return { ok: false, error: 'invalid_arguments' };
        }
        return { ok: true };
      }
      case 'users.conversations': {
        const user = String(a.user ?? '');
        return {
          ok: true,
          channels: (this.memberships.get(user) ?? ['C0GENERAL']).map((id) => ({
            id,
            name: id.toLowerCase(),
            is_channel: true,
            is_member: true,
          })),
          response_metadata: { next_cursor: '' },
        };
      }
      case 'chat.getPermalink': {
        const msg = this.find(channel, String(a.message_ts ?? ''));
        if (!msg) return { ok: false, error: 'message_not_found' };
        return {
          ok: true,
          channel,
          permalink: `https://fake.slack.com/archives/${channel}/p${msg.ts.replace('.', '')}`,
        };
      }
      case 'users.info': {
        const id = String(a.user ?? '');
        const user =
          this.users.get(id) ?? (/^[UW][A-Z0-9]{2,}$/.test(id) ? { name: id.toLowerCase(), tz: 'UTC' } : undefined);
        if (!user) return { ok: false, error: 'user_not_found' };
        const realName = user.realName ?? user.name;
        return {
          ok: true,
          user: {
            id,
            team_id: this.teamId,
            name: user.name,
            real_name: realName,
            tz: user.tz ?? 'America/Los_Angeles',
            tz_offset: -28800,
            is_bot: id === this.botUserId,
            profile: { display_name: user.displayName ?? '', real_name: realName },
          },
        };
      }
      case 'agents.sessions.setStatus':
      case 'agents.sessions.rename':
        return this.agentSessionCall(method, a);
      case 'conversations.open': {
        // The bot's direct conversation with one person (scope im:write): the same `D…` channel every time.
        const users = String(a.users ?? '');
        if (this.imRefusal) return { ok: false, error: this.imRefusal };
        if (!/^[UW][A-Z0-9]{2,}$/.test(users)) return { ok: false, error: 'user_not_found' };
        return { ok: true, channel: { id: directChannelOf(users) } };
      }
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }
}

/** An input block's element as the fake reads it back on submission. */
interface ViewInputElement {
  readonly type: string;
  readonly action_id: string;
  readonly initial_value?: string;
  readonly initial_conversation?: string;
  readonly initial_date?: string;
  readonly options?: readonly { text: unknown; value: string }[];
  readonly initial_option?: { text: unknown; value: string };
  readonly initial_options?: readonly { text: unknown; value: string }[];
}

/**
 * What Slack puts in `view.state.values` for one input on submission: the prefilled entry unless `given`
 * (an option's value, or several for a multi-select) replaces it, in the shape of the element's type.
 */
function inputState(e: ViewInputElement, given: string | readonly string[] | undefined): Record<string, unknown> {
  const option = (value: string) => {
    const found = e.options?.find((o) => o.value === value);
    if (!found) throw new Error(`fake-slack: ${e.type} has no option ${value}`);
    return found;
  };
  switch (e.type) {
    case 'conversations_select':
      return { type: e.type, selected_conversation: (given as string | undefined) ?? e.initial_conversation ?? null };
    case 'static_select':
    case 'radio_buttons':
      return {
        type: e.type,
        selected_option: given !== undefined ? option(given as string) : (e.initial_option ?? null),
      };
    case 'multi_static_select':
    case 'checkboxes':
      return {
        type: e.type,
        selected_options: given !== undefined ? [given].flat().map(option) : (e.initial_options ?? []),
      };
    case 'datepicker':
      return { type: e.type, selected_date: (given as string | undefined) ?? e.initial_date ?? null };
    default:
      return { type: e.type, value: (given as string | undefined) ?? e.initial_value ?? null };
  }
}

/** Block Kit's limits on a modal's inputs, as Slack answers `invalid_arguments` for them. */
function inputProblem(block: {
  label?: { text?: string };
  element?: ViewInputElement & {
    max_length?: number;
    min_length?: number;
    is_decimal_allowed?: unknown;
    max_selected_items?: number;
  };
}): string | null {
  const e = block.element;
  if (!e) return null;
  if ((block.label?.text ?? '').length > 2000) return 'input label longer than 2000';
  const known = [
    'plain_text_input',
    'email_text_input',
    'url_text_input',
    'number_input',
    'datepicker',
    'static_select',
    'multi_static_select',
    'radio_buttons',
    'checkboxes',
    'conversations_select',
  ];
  if (!known.includes(e.type)) return `unknown input element ${e.type}`;
  if (e.max_length !== undefined && (e.max_length < 1 || e.max_length > 3000)) return 'max_length must be 1–3000';
  if (e.min_length !== undefined && (e.min_length < 0 || e.min_length > 3000)) return 'min_length must be 0–3000';
  if (e.type === 'number_input' && typeof e.is_decimal_allowed !== 'boolean')
    return 'number_input needs is_decimal_allowed';
  if (e.options) {
    const max = e.type === 'radio_buttons' || e.type === 'checkboxes' ? 10 : 100;
    if (e.options.length === 0 || e.options.length > max) return `${e.type} takes 1–${max} options`;
    for (const o of e.options) {
      const text = (o.text as { text?: string } | undefined)?.text ?? '';
      if (text.length === 0 || text.length > 75 || o.value.length > 150)
        return 'an option needs text of 1–75 characters and a value of at most 150';
    }
    const values = new Set(e.options.map((o) => o.value));
    if (e.initial_option && !values.has(e.initial_option.value)) return 'initial_option is not one of the options';
    if (e.initial_options?.some((o) => !values.has(o.value))) return 'initial_options are not among the options';
  }
  if (e.initial_date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(e.initial_date))
    return 'initial_date must be YYYY-MM-DD';
  return null;
}

/** The id of the bot's direct conversation with a person, as `conversations.open` gives it (`U0ALICE01` → `D0ALICE01`). */
export function directChannelOf(userId: string): string {
  return `D${userId.slice(1)}`;
}
