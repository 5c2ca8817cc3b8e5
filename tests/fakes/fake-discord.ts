import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { z } from 'zod';
import {
  acceptFiles,
  DISCORD_UPLOAD_LIMIT,
  isFileProblem,
  readMultipart,
  type UploadedPart,
} from './fake-discord-files.js';

/**
 * A local Discord for the real discord.js client: a gateway (ws) and REST API on one 127.0.0.1
 * port. It records every REST call, enforces the limits real Discord enforces (content length,
 * empty messages, thread names, one thread per message, one interaction callback, the per-channel
 * message rate limit), echoes the bot's own messages back as MESSAGE_CREATE, filters dispatches
 * by the identified intents, and replays missed dispatches on RESUME after an op 7 RECONNECT.
 * Drivers dispatch what users do: messages, DMs, slash commands and button clicks.
 */

const INTENT = { Guilds: 1 << 0, GuildMessages: 1 << 9, DirectMessages: 1 << 12, MessageContent: 1 << 15 } as const;
const CHANNEL = { GuildText: 0, DM: 1, PublicThread: 11 } as const;
const EPHEMERAL = 1 << 6;
const HAS_THREAD = 1 << 5;
const ALL_PERMISSIONS = String((1n << 50n) - 1n);

export interface FakeUser {
  id: string;
  username: string;
  bot?: boolean;
  /** Discord's display name; null when the user set none (default: the username). */
  globalName?: string | null;
  /** Server nickname in the fake's guild. */
  nick?: string;
  /** Ids of the guild roles the member has (never @everyone, as Discord sends them); see `addRole`. */
  roles?: string[];
  /** The person turned off direct messages from server members: the bot's DMs are refused (50007). */
  dmsClosed?: boolean;
  /** Not a member of the fake's guild: sharing no server with the bot, its DMs are refused (50007). */
  outsideGuild?: boolean;
}

/** A role of the fake's guild, as GUILD_CREATE and GUILD_ROLE_CREATE carry it. */
export interface FakeRole {
  id: string;
  name: string;
}

export interface FakeChannel {
  id: string;
  type: number;
  guild_id?: string;
  parent_id?: string;
  name?: string;
  owner_id?: string;
  recipients?: FakeUser[];
  members: Set<string>;
  /** Set when the channel refuses the bot's posts (a locked thread, access taken away): Discord's answer. */
  refusal?: { status: number; code: number; message: string };
}

export interface FakeMessage {
  id: string;
  channel_id: string;
  guild_id?: string;
  author: FakeUser;
  content: string;
  components: unknown[];
  flags: number;
  mentions: FakeUser[];
  thread?: string;
  deleted: boolean;
  /** ISO time the message was created. */
  timestamp: string;
  /** Files on the message, served by the fake at their `url` (like cdn.discordapp.com). */
  attachments?: FakeAttachment[];
}

/** A file a user attaches; `contentType` may be absent, as Discord sometimes leaves it out. */
export interface FakeFile {
  name: string;
  contentType?: string;
  bytes: Uint8Array;
}

interface FakeAttachment extends FakeFile {
  id: string;
}

/** One REST request as the fake received it. */
export interface RestCall {
  method: string;
  /** Decoded path after `/api/v10`, e.g. `/channels/1/messages`. */
  path: string;
  query: URLSearchParams;
  body: unknown;
  /** The file parts of a multipart/form-data request (a message with attachments), as bytes. */
  files?: UploadedPart[];
  authorized: boolean;
  status: number;
  at: number;
}

export interface InteractionRecord {
  id: string;
  /** 2 command, 3 component, 5 modal submit. */
  type: number;
  token: string;
  createdAt: number;
  /** The message whose button was clicked (component interactions). */
  messageId?: string;
  /** Callback bodies accepted, in order (type 4 reply, 5 defer, 6 deferred update, 7 update). */
  callbacks: { type: number; data?: Record<string, unknown> }[];
  /** What the user sees as the response: content, ephemeral flag, and later edits/follow-ups. */
  responses: { content: string; ephemeral: boolean; components: unknown[] }[];
  /** The modal shown in answer (callback type 9). */
  modal?: FakeModal;
}

export interface FakeDiscordOptions {
  heartbeatIntervalMs?: number;
  /** Messages per channel per window (Discord: 5 per 5 s). */
  messageLimit?: { count: number; windowMs: number };
  /** Whether the application has the privileged Message Content intent enabled in the portal. */
  messageContentEnabled?: boolean;
  /** How long an interaction can wait for its first callback (Discord: 3 s). */
  interactionTimeoutMs?: number;
  /** The largest file a message may carry (Discord: 10 MiB for a bot in a server without boosts). */
  uploadLimitBytes?: number;
}

interface Dispatch {
  s: number;
  t: string;
  d: unknown;
}

interface Session {
  id: string;
  intents: number;
  seq: number;
  log: Dispatch[];
  socket: WebSocket | null;
}

const frameSchema = z.object({ op: z.number(), d: z.unknown() });
const identifySchema = z.object({ token: z.string(), intents: z.number() });
const resumeSchema = z.object({ token: z.string(), session_id: z.string(), seq: z.number().nullable() });
const componentSchema = z.object({
  type: z.literal(1),
  components: z
    .array(
      z
        .object({ type: z.number(), custom_id: z.string().max(100).optional(), label: z.string().max(80).optional() })
        .passthrough(),
    )
    .min(1)
    .max(5),
});
const messageBodySchema = z.object({
  content: z.string().optional(),
  components: z.array(componentSchema).max(5).optional(),
  embeds: z.array(z.unknown()).optional(),
  flags: z.number().optional(),
  allowed_mentions: z.unknown().optional(),
  nonce: z.union([z.string().max(25), z.number().int()]).optional(),
  enforce_nonce: z.boolean().optional(),
});
const threadBodySchema = z.object({ name: z.string(), auto_archive_duration: z.number().optional() });
const textInputSchema = z.object({
  type: z.literal(4),
  custom_id: z.string().min(1).max(100),
  label: z.string().min(1).max(45),
  style: z.union([z.literal(1), z.literal(2)]),
  value: z.string().max(4000).optional(),
  required: z.boolean().optional(),
  max_length: z.number().optional(),
  placeholder: z.string().max(100).optional(),
});
/** A modal (callback type 9): 1 to 5 rows of one text input each, a title of at most 45 characters. */
const modalSchema = z.object({
  custom_id: z.string().min(1).max(100),
  title: z.string().min(1).max(45),
  components: z
    .array(z.object({ type: z.literal(1), components: z.array(textInputSchema).length(1) }))
    .min(1)
    .max(5),
});
export type FakeModal = z.infer<typeof modalSchema>;
const callbackSchema = z.object({ type: z.number(), data: z.unknown().optional() });

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(String(body.message));
  }
}

const invalidForm = (field: string, code: string, message: string) =>
  new HttpError(400, {
    message: 'Invalid Form Body',
    code: 50035,
    errors: { [field]: { _errors: [{ code, message }] } },
  });

let snowflake = 1_300_000_000_000_000_000n;
/** A fresh, increasing Discord-style id. */
export function nextSnowflake(): string {
  snowflake += 1n;
  return String(snowflake);
}

const userObject = (u: FakeUser) => ({
  id: u.id,
  username: u.username,
  global_name: u.globalName === undefined ? u.username : u.globalName,
  discriminator: '0',
  avatar: null,
  ...(u.bot ? { bot: true } : {}),
});

/** The running fake; see startFakeDiscord. */
export class FakeDiscord {
  readonly bot: FakeUser = { id: nextSnowflake(), username: 'errand', bot: true };
  readonly applicationId = this.bot.id;
  readonly guildId = nextSnowflake();
  /** A user who talks to the bot, a second bot, and a default text channel. */
  readonly alice: FakeUser = { id: nextSnowflake(), username: 'alice' };
  readonly otherBot: FakeUser = { id: nextSnowflake(), username: 'otherbot', bot: true };
  readonly general: FakeChannel;
  readonly users = new Map<string, FakeUser>();
  /** The guild's roles besides @everyone (whose id is the guild id). */
  readonly roles: FakeRole[] = [];
  readonly channels = new Map<string, FakeChannel>();
  readonly messages = new Map<string, FakeMessage>();
  readonly calls: RestCall[] = [];
  /** Attachment ids whose URL was requested, in order. */
  readonly attachmentDownloads: string[] = [];
  readonly interactions = new Map<string, InteractionRecord>();
  private readonly lastInteractionChannel = new Map<string, string>();
  /** Commands last written by a bulk overwrite, keyed `global` or the guild id. */
  readonly registeredCommands = new Map<string, unknown[]>();
  readonly stats = { identifies: 0, resumes: 0, heartbeats: 0, rateLimited: 0 };
  /** Every MESSAGE_CREATE/UPDATE sent down a live gateway socket, the bot's own echoes included. */
  readonly messageDispatches: { t: 'MESSAGE_CREATE' | 'MESSAGE_UPDATE'; messageId: string; authorId: string }[] = [];
  /** Gateway close codes the fake sent (4014 for disallowed intents). */
  readonly closeCodes: number[] = [];
  /** Called after each REST call is answered (benchmarks time replies with it). */
  onCall: ((call: RestCall) => void) | null = null;
  private readonly sessions = new Map<string, Session>();
  private readonly buckets = new Map<string, { start: number; count: number }>();
  private readonly forced429 = new Set<string>();
  private readonly forced500 = new Set<string>();
  /** Nonces of posts sent with enforce_nonce, keyed channel:author:nonce (Discord keeps them a few minutes). */
  private readonly nonces = new Map<string, { messageId: string; at: number }>();
  private threadRefusal: { status: number; code: number; message: string } | null = null;
  private held: { pattern: RegExp; onlyIf: (call: RestCall) => boolean; waiting: (() => void)[] } | null = null;
  private gatewayDown = false;
  private readonly heldSockets: WebSocket[] = [];
  private readonly options: Required<FakeDiscordOptions>;
  private server: Server | null = null;
  private wss: WebSocketServer | null = null;
  private port = 0;

  constructor(options: FakeDiscordOptions = {}) {
    this.options = {
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
      messageLimit: options.messageLimit ?? { count: 5, windowMs: 5000 },
      messageContentEnabled: options.messageContentEnabled ?? true,
      interactionTimeoutMs: options.interactionTimeoutMs ?? 3000,
      uploadLimitBytes: options.uploadLimitBytes ?? DISCORD_UPLOAD_LIMIT,
    };
    for (const u of [this.bot, this.alice, this.otherBot]) this.users.set(u.id, u);
    this.general = this.addChannel({
      id: nextSnowflake(),
      type: CHANNEL.GuildText,
      guild_id: this.guildId,
      name: 'general',
      members: new Set(),
    });
  }

  get apiUrl(): string {
    return `http://127.0.0.1:${this.port}/api`;
  }

  get gatewayUrl(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  async listen(): Promise<void> {
    const server = createServer((req, res) => void this.handleHttp(req, res));
    this.server = server;
    this.wss = new WebSocketServer({ server });
    this.wss.on('connection', (ws) => this.handleSocket(ws));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const client of this.wss?.clients ?? []) client.terminate();
    this.wss?.close();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  // ---- drivers -------------------------------------------------------------------------------

  /** Adds a guild text channel (announced with CHANNEL_CREATE when a client is connected). */
  addTextChannel(name: string): FakeChannel {
    const channel = this.addChannel({
      id: nextSnowflake(),
      type: CHANNEL.GuildText,
      guild_id: this.guildId,
      name,
      members: new Set(),
    });
    this.dispatch('CHANNEL_CREATE', this.channelObject(channel), INTENT.Guilds);
    return channel;
  }

  /** Adds a guild role (announced with GUILD_ROLE_CREATE when a client is connected); give it to people through `FakeUser.roles`. */
  addRole(name: string): FakeRole {
    const role = { id: nextSnowflake(), name };
    this.roles.push(role);
    this.dispatch(
      'GUILD_ROLE_CREATE',
      { guild_id: this.guildId, role: this.roleObject(role, this.roles.length) },
      INTENT.Guilds,
    );
    return role;
  }

  /** A user posts in a guild channel or thread; `<@id>` in the content mentions that user. */
  userMessage(channelId: string, content: string, author: FakeUser = this.alice, files: FakeFile[] = []): FakeMessage {
    const channel = this.requireChannel(channelId);
    return this.createMessage(channel, author, {
      content,
      components: [],
      flags: 0,
      ...(files.length > 0 ? { attachments: files.map((f) => ({ ...f, id: nextSnowflake() })) } : {}),
    });
  }

  /** A user writes to the bot in a DM the client has never seen (no CHANNEL_CREATE first). */
  directMessage(content: string, author: FakeUser = this.alice): FakeMessage {
    let dm = [...this.channels.values()].find((c) => c.type === CHANNEL.DM && c.recipients?.[0]?.id === author.id);
    dm ??= this.addChannel({ id: nextSnowflake(), type: CHANNEL.DM, recipients: [author], members: new Set() });
    return this.createMessage(dm, author, { content, components: [], flags: 0 });
  }

  /** Delivers an existing message's MESSAGE_CREATE again (a duplicate delivery, same id). */
  redeliver(messageId: string): void {
    const message = this.messages.get(messageId);
    if (!message) throw new Error(`no message ${messageId}`);
    this.dispatchMessage('MESSAGE_CREATE', message);
  }

  /** A thread a user opened on their own message (the bot is not a member). */
  userThread(channelId: string, name: string, author: FakeUser = this.alice): FakeChannel {
    const starter = this.userMessage(channelId, name, author);
    return this.openThread(starter, name, author);
  }

  /** A slash command used by `user` in a channel; options as Discord sends them. */
  slashCommand(
    name: string,
    channelId: string,
    options: unknown[] = [],
    user: FakeUser = this.alice,
  ): InteractionRecord {
    const channel = this.requireChannel(channelId);
    const command = (this.registeredCommands.get(this.guildId) ?? this.registeredCommands.get('global') ?? []).find(
      (c) => (c as { name?: string }).name === name,
    ) as { id?: string } | undefined;
    return this.interaction(2, channel, user, { id: command?.id ?? nextSnowflake(), name, type: 1, options });
  }

  /**
   * A person submits the modal shown in answer to `record`: each field keeps the value it was
   * shown with unless `values` (by custom_id) says otherwise. Dispatched as MODAL_SUBMIT (type 5).
   */
  submitModal(
    record: InteractionRecord,
    values: Record<string, string> = {},
    channelId?: string,
    user: FakeUser = this.alice,
  ): InteractionRecord {
    const modal = record.modal;
    if (!modal) throw new Error(`interaction ${record.id} showed no modal`);
    const channel = this.requireChannel(channelId ?? this.lastInteractionChannel.get(record.token) ?? '');
    const components = modal.components.map((row) => ({
      type: 1,
      components: row.components.map((i) => ({
        type: 4,
        custom_id: i.custom_id,
        value: values[i.custom_id] ?? i.value ?? '',
      })),
    }));
    return this.interaction(5, channel, user, { custom_id: modal.custom_id, components });
  }

  /** A click on a button of an ephemeral interaction response (those are no stored messages). */
  clickInResponse(record: InteractionRecord, customId: string, user: FakeUser = this.alice): InteractionRecord {
    const response = [...record.responses]
      .reverse()
      .find((r) => JSON.stringify(r.components).includes(`"custom_id":${JSON.stringify(customId)}`));
    if (!response) throw new Error(`no response of interaction ${record.id} has a button ${customId}`);
    const channel = this.requireChannel(this.lastInteractionChannel.get(record.token) ?? '');
    const message = {
      id: nextSnowflake(),
      type: 20,
      channel_id: channel.id,
      content: response.content,
      components: response.components,
      flags: EPHEMERAL,
      author: userObject(this.bot),
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      attachments: [],
      embeds: [],
      pinned: false,
    };
    return this.interaction(3, channel, user, { custom_id: customId, component_type: 2 }, message);
  }

  /** A click on a button (custom_id) of a message the bot posted. */
  clickButton(messageId: string, customId: string, user: FakeUser = this.alice): InteractionRecord {
    const message = this.messages.get(messageId);
    if (!message) throw new Error(`no message ${messageId}`);
    const channel = this.requireChannel(message.channel_id);
    const record = this.interaction(
      3,
      channel,
      user,
      { custom_id: customId, component_type: 2 },
      this.messageObject(message),
    );
    record.messageId = message.id;
    return record;
  }

  /** Sends op 7 RECONNECT; dispatches until the client RESUMEs are kept and replayed. */
  requestReconnect(): void {
    for (const session of this.sessions.values()) {
      session.socket?.send(JSON.stringify({ op: 7, d: null }));
      session.socket = null;
    }
  }

  /** Deletes a channel or thread (announced like Discord does): anything sent there answers 404 Unknown Channel (10003). */
  deleteChannel(channelId: string): void {
    const channel = this.requireChannel(channelId);
    this.channels.delete(channelId);
    if (channel.type === CHANNEL.PublicThread)
      this.dispatch(
        'THREAD_DELETE',
        { id: channel.id, type: channel.type, guild_id: channel.guild_id, parent_id: channel.parent_id },
        INTENT.Guilds,
      );
    else if (channel.guild_id) this.dispatch('CHANNEL_DELETE', this.channelObject(channel), INTENT.Guilds);
  }

  /** Archives and locks a thread: the bot's posts there answer 400 code 50083. */
  lockThread(threadId: string): void {
    this.requireChannel(threadId).refusal = { status: 400, code: 50083, message: 'Thread is archived' };
  }

  /** Takes the bot's access to a channel away: its posts there answer 403 Missing Access (50001). */
  revokeAccess(channelId: string): void {
    this.requireChannel(channelId).refusal = { status: 403, code: 50001, message: 'Missing Access' };
  }

  /**
   * An outage: drops every gateway connection abnormally and holds new ones without HELLO until
   * `restoreGateway()`, so the client stays reconnecting. Sessions are kept, so it then RESUMEs.
   */
  dropGateway(): void {
    this.gatewayDown = true;
    for (const session of this.sessions.values()) session.socket = null;
    for (const client of this.wss?.clients ?? []) client.terminate();
  }

  /** Ends the outage: held connections get their HELLO now. */
  restoreGateway(): void {
    this.gatewayDown = false;
    for (const ws of this.heldSockets.splice(0)) this.hello(ws);
  }

  /** Answers the next message POST in a channel with a 429 (as a shared or global bucket would). */
  forceRateLimit(channelId: string): void {
    this.forced429.add(channelId);
  }

  /** Stores the next message POSTed in a channel, then answers 500 (the answer got lost); discord.js retries such calls. */
  failAfterStoreOnce(channelId: string): void {
    this.forced500.add(channelId);
  }

  /**
   * From now on, requests whose path matches are carried out (a message is stored) but their answers
   * are held back until `releaseAnswers`: the window between the platform accepting a post and the
   * bot hearing so. `onlyIf` narrows it to some requests (e.g. posts that carry a nonce).
   */
  holdAnswers(pathPattern: RegExp, onlyIf: (call: RestCall) => boolean = () => true): void {
    this.held = { pattern: pathPattern, onlyIf, waiting: [] };
  }

  /** Answers every held request and stops holding. */
  releaseAnswers(): void {
    const waiting = this.held?.waiting ?? [];
    this.held = null;
    for (const w of waiting) w();
  }

  /** Thread creation is refused with Discord's answer (e.g. 403, 50013 Missing Permissions), or no longer. */
  refuseThreads(refusal: { status: number; code: number; message: string } | null): void {
    this.threadRefusal = refusal;
  }

  /** Requests carried out whose answers are held back now. */
  heldAnswers(): number {
    return this.held?.waiting.length ?? 0;
  }

  /** Messages in a channel, oldest first, not deleted. */
  messagesIn(channelId: string): FakeMessage[] {
    return [...this.messages.values()].filter((m) => m.channel_id === channelId && !m.deleted);
  }

  /** The bot's visible messages in a channel, oldest first. */
  botMessagesIn(channelId: string): FakeMessage[] {
    return this.messagesIn(channelId).filter((m) => m.author.id === this.bot.id);
  }

  callsTo(method: string, pattern: RegExp): RestCall[] {
    return this.calls.filter((c) => c.method === method && pattern.test(c.path));
  }

  /** Live gateway sessions (connected or waiting to resume). */
  sessionCount(): number {
    return this.sessions.size;
  }

  // ---- model -----------------------------------------------------------------------------------

  private addChannel(channel: FakeChannel): FakeChannel {
    this.channels.set(channel.id, channel);
    return channel;
  }

  private requireChannel(id: string): FakeChannel {
    const channel = this.channels.get(id);
    if (!channel) throw new HttpError(404, { message: 'Unknown Channel', code: 10003 });
    return channel;
  }

  private createMessage(
    channel: FakeChannel,
    author: FakeUser,
    body: { content: string; components: unknown[]; flags: number; attachments?: FakeAttachment[] },
  ): FakeMessage {
    const mentions = [...body.content.matchAll(/<@!?(\d+)>/g)]
      .map((m) => this.users.get(m[1] ?? ''))
      .filter((u): u is FakeUser => u !== undefined);
    const message: FakeMessage = {
      id: nextSnowflake(),
      channel_id: channel.id,
      author,
      mentions,
      deleted: false,
      timestamp: new Date().toISOString(),
      ...body,
      ...(channel.guild_id ? { guild_id: channel.guild_id } : {}),
    };
    this.messages.set(message.id, message);
    if (channel.type === CHANNEL.PublicThread) channel.members.add(author.id);
    this.dispatchMessage('MESSAGE_CREATE', message);
    return message;
  }

  private openThread(starter: FakeMessage, name: string, owner: FakeUser): FakeChannel {
    const parent = this.requireChannel(starter.channel_id);
    if (parent.type !== CHANNEL.GuildText)
      throw new HttpError(400, { message: 'Cannot execute action on this channel type', code: 50024 });
    if (starter.thread)
      throw new HttpError(400, { message: 'A thread has already been created for this message', code: 160004 });
    if (name.length < 1 || name.length > 100)
      throw invalidForm('name', 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
    const thread = this.addChannel({
      id: starter.id,
      type: CHANNEL.PublicThread,
      guild_id: this.guildId,
      parent_id: parent.id,
      name,
      owner_id: owner.id,
      members: new Set([owner.id]),
    });
    starter.thread = thread.id;
    starter.flags |= HAS_THREAD;
    this.dispatch('THREAD_CREATE', { ...this.channelObject(thread), newly_created: true }, INTENT.Guilds);
    this.dispatchMessage('MESSAGE_UPDATE', starter);
    return thread;
  }

  private interaction(
    type: 2 | 3 | 5,
    channel: FakeChannel,
    user: FakeUser,
    data: Record<string, unknown>,
    message?: unknown,
  ): InteractionRecord {
    const record: InteractionRecord = {
      id: nextSnowflake(),
      token: `itoken-${nextSnowflake()}`,
      type,
      createdAt: Date.now(),
      callbacks: [],
      responses: [],
    };
    this.interactions.set(record.token, record);
    this.lastInteractionChannel.set(record.token, channel.id);
    const inGuild = channel.guild_id !== undefined;
    this.dispatch('INTERACTION_CREATE', {
      id: record.id,
      application_id: this.applicationId,
      type,
      token: record.token,
      version: 1,
      channel_id: channel.id,
      channel: this.channelObject(channel),
      ...(inGuild
        ? {
            guild_id: channel.guild_id,
            guild_locale: 'en-US',
            member: { user: userObject(user), ...this.memberObject(user), permissions: ALL_PERMISSIONS },
          }
        : { user: userObject(user) }),
      data,
      ...(message ? { message } : {}),
      locale: 'en-US',
      app_permissions: ALL_PERMISSIONS,
      entitlements: [],
      authorizing_integration_owners: { '0': this.guildId },
      context: inGuild ? 0 : 1,
      attachment_size_limit: 10_485_760,
    });
    return record;
  }

  private channelObject(c: FakeChannel): Record<string, unknown> {
    const base = { id: c.id, type: c.type, last_message_id: null, flags: 0 };
    if (c.type === CHANNEL.DM) return { ...base, recipients: (c.recipients ?? []).map(userObject) };
    if (c.type === CHANNEL.PublicThread) {
      return {
        ...base,
        guild_id: c.guild_id,
        parent_id: c.parent_id,
        owner_id: c.owner_id,
        name: c.name,
        rate_limit_per_user: 0,
        message_count: this.messagesIn(c.id).length,
        member_count: c.members.size,
        thread_metadata: {
          archived: false,
          auto_archive_duration: 1440,
          archive_timestamp: new Date().toISOString(),
          locked: false,
        },
      };
    }
    return {
      ...base,
      guild_id: c.guild_id,
      name: c.name,
      position: 0,
      permission_overwrites: [],
      parent_id: null,
      nsfw: false,
      topic: null,
      rate_limit_per_user: 0,
    };
  }

  /** A guild member as messages and interactions carry it (without `user` in messages): role ids, nickname. */
  private memberObject(u: FakeUser): Record<string, unknown> {
    return {
      roles: [...(u.roles ?? [])],
      joined_at: new Date().toISOString(),
      deaf: false,
      mute: false,
      flags: 0,
      ...(u.nick ? { nick: u.nick } : {}),
    };
  }

  private roleObject(r: FakeRole, position: number): Record<string, unknown> {
    return {
      id: r.id,
      name: r.name,
      permissions: '0',
      position,
      color: 0,
      hoist: false,
      managed: false,
      mentionable: false,
      flags: 0,
    };
  }

  private messageObject(m: FakeMessage): Record<string, unknown> {
    const thread = m.thread ? this.channels.get(m.thread) : undefined;
    return {
      id: m.id,
      channel_id: m.channel_id,
      channel_type: this.channels.get(m.channel_id)?.type,
      ...(m.guild_id ? { guild_id: m.guild_id, member: this.memberObject(m.author) } : {}),
      author: userObject(m.author),
      content: m.content,
      timestamp: m.timestamp,
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: m.mentions.map(userObject),
      mention_roles: [],
      attachments: (m.attachments ?? []).map((a) => ({
        id: a.id,
        filename: a.name,
        size: a.bytes.length,
        url: this.attachmentUrl(m.channel_id, a),
        proxy_url: this.attachmentUrl(m.channel_id, a),
        ...(a.contentType ? { content_type: a.contentType } : {}),
      })),
      embeds: [],
      components: m.components,
      pinned: false,
      type: 0,
      flags: m.flags,
      ...(thread ? { thread: this.channelObject(thread) } : {}),
    };
  }

  /** Like Discord's CDN links: signed with expiry parameters (`ex`, `is`, `hm`), needing no token. */
  private attachmentUrl(channelId: string, a: FakeAttachment): string {
    return `http://127.0.0.1:${this.port}/attachments/${channelId}/${a.id}/${encodeURIComponent(a.name)}?ex=${Math.floor(Date.now() / 1000 + 86_400).toString(16)}&is=0&hm=fake`;
  }

  /** Serves an attachment's bytes; an unknown one, or one without its signature, is a 404 as on the CDN. */
  private serveAttachment(url: URL, res: ServerResponse): void {
    const [, , channelId, id] = url.pathname.split('/');
    const message = [...this.messages.values()].find(
      (m) => m.channel_id === channelId && m.attachments?.some((a) => a.id === id),
    );
    const file = message?.attachments?.find((a) => a.id === id);
    this.attachmentDownloads.push(id ?? '');
    if (!file || !url.searchParams.get('hm')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('This content is no longer available.');
      return;
    }
    res
      .writeHead(200, {
        'content-type': file.contentType ?? 'application/octet-stream',
        'content-length': String(file.bytes.length),
      })
      .end(Buffer.from(file.bytes));
  }

  // ---- gateway ---------------------------------------------------------------------------------

  private dispatchMessage(t: 'MESSAGE_CREATE' | 'MESSAGE_UPDATE', m: FakeMessage): void {
    const needed = m.guild_id ? INTENT.GuildMessages : INTENT.DirectMessages;
    const full = this.messageObject(m);
    const sent = this.dispatch(
      t,
      (session: Session) => {
        const privileged =
          m.guild_id === undefined || m.author.id === this.bot.id || m.mentions.some((u) => u.id === this.bot.id);
        if (privileged || (session.intents & INTENT.MessageContent) !== 0) return full;
        return { ...full, content: '', embeds: [], attachments: [], components: [] };
      },
      needed,
    );
    if (sent > 0) this.messageDispatches.push({ t, messageId: m.id, authorId: m.author.id });
  }

  /** Sends a dispatch to every session holding `intent` (0 = always); buffered while a session resumes. Returns how many were connected. */
  private dispatch(t: string, d: unknown | ((s: Session) => unknown), intent = 0): number {
    let live = 0;
    for (const session of this.sessions.values()) {
      if (intent !== 0 && (session.intents & intent) === 0) continue;
      this.send(session, t, typeof d === 'function' ? (d as (s: Session) => unknown)(session) : d);
      if (session.socket) live++;
    }
    return live;
  }

  private send(session: Session, t: string, d: unknown): void {
    const entry: Dispatch = { s: ++session.seq, t, d };
    session.log.push(entry);
    if (session.log.length > 2000) session.log.shift();
    session.socket?.send(JSON.stringify({ op: 0, ...entry }));
  }

  private handleSocket(ws: WebSocket): void {
    let session: Session | null = null;
    if (this.gatewayDown) this.heldSockets.push(ws);
    else this.hello(ws);
    ws.on('message', (raw: Buffer) => {
      const frame = frameSchema.safeParse(JSON.parse(raw.toString('utf8')));
      if (!frame.success) return ws.close(4002, 'Decode error');
      const { op, d } = frame.data;
      if (op === 1) {
        this.stats.heartbeats++;
        ws.send(JSON.stringify({ op: 11 }));
      } else if (op === 2) {
        const identify = identifySchema.parse(d);
        if ((identify.intents & INTENT.MessageContent) !== 0 && !this.options.messageContentEnabled) {
          this.closeCodes.push(4014);
          return ws.close(4014, 'Disallowed intent(s).');
        }
        this.stats.identifies++;
        session = { id: `session-${nextSnowflake()}`, intents: identify.intents, seq: 0, log: [], socket: ws };
        this.sessions.set(session.id, session);
        this.send(session, 'READY', {
          v: 10,
          user: { ...userObject(this.bot), verified: true, mfa_enabled: false, flags: 0 },
          guilds: [{ id: this.guildId, unavailable: true }],
          session_id: session.id,
          resume_gateway_url: this.gatewayUrl,
          shard: [0, 1],
          application: { id: this.applicationId, flags: 0 },
          private_channels: [],
        });
        if ((identify.intents & INTENT.Guilds) !== 0) this.send(session, 'GUILD_CREATE', this.guildObject());
      } else if (op === 6) {
        const resume = resumeSchema.parse(d);
        const found = this.sessions.get(resume.session_id);
        if (!found) return ws.send(JSON.stringify({ op: 9, d: false }));
        this.stats.resumes++;
        session = found;
        found.socket = ws;
        for (const entry of found.log.filter((e) => e.s > (resume.seq ?? 0)))
          ws.send(JSON.stringify({ op: 0, ...entry }));
        this.send(found, 'RESUMED', {});
      }
    });
    ws.on('close', (code: number) => {
      if (!session || session.socket !== ws) return;
      session.socket = null;
      if (code === 1000 || code === 1001) this.sessions.delete(session.id);
    });
  }

  private hello(ws: WebSocket): void {
    if (ws.readyState === ws.OPEN)
      ws.send(JSON.stringify({ op: 10, d: { heartbeat_interval: this.options.heartbeatIntervalMs } }));
  }

  private guildObject(): Record<string, unknown> {
    const channels = [...this.channels.values()].filter((c) => c.guild_id === this.guildId);
    return {
      id: this.guildId,
      name: 'Errand Test Server',
      icon: null,
      owner_id: this.alice.id,
      unavailable: false,
      large: false,
      member_count: 3,
      joined_at: new Date().toISOString(),
      roles: [
        {
          id: this.guildId,
          name: '@everyone',
          permissions: ALL_PERMISSIONS,
          position: 0,
          color: 0,
          hoist: false,
          managed: false,
          mentionable: false,
          flags: 0,
        },
        ...this.roles.map((r, i) => this.roleObject(r, i + 1)),
      ],
      channels: channels.filter((c) => c.type !== CHANNEL.PublicThread).map((c) => this.channelObject(c)),
      threads: channels.filter((c) => c.type === CHANNEL.PublicThread).map((c) => this.channelObject(c)),
      members: [
        {
          user: userObject(this.bot),
          roles: [],
          joined_at: new Date().toISOString(),
          deaf: false,
          mute: false,
          flags: 0,
        },
      ],
      emojis: [],
      stickers: [],
      features: [],
      voice_states: [],
      presences: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
      premium_tier: 0,
      verification_level: 0,
      system_channel_flags: 0,
      preferred_locale: 'en-US',
    };
  }

  // ---- REST ------------------------------------------------------------------------------------

  private async handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const contentType = String(req.headers['content-type'] ?? '');
    const multipart = contentType.startsWith('multipart/form-data')
      ? await readMultipart(Buffer.concat(chunks), contentType)
      : null;
    const text = multipart ? '' : Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname.startsWith('/attachments/')) return this.serveAttachment(url, res);
    const path = url.pathname
      .replace(/^\/api(\/v\d+)?/, '')
      .split('/')
      .map(decodeURIComponent)
      .join('/');
    const call: RestCall = {
      method: req.method ?? 'GET',
      path,
      query: url.searchParams,
      body: multipart ? multipart.payload : text === '' ? undefined : (JSON.parse(text) as unknown),
      ...(multipart ? { files: multipart.parts } : {}),
      authorized: req.headers.authorization === `Bot ${FAKE_DISCORD_TOKEN}`,
      status: 0,
      at: Date.now(),
    };
    this.calls.push(call);
    let status = 200;
    let body: unknown;
    let headers: Record<string, string> = {};
    try {
      const needsAuth = !path.startsWith('/interactions/') && !path.startsWith('/webhooks/');
      if (needsAuth && !call.authorized) throw new HttpError(401, { message: '401: Unauthorized', code: 0 });
      const out = this.route(call);
      status = out.status ?? 200;
      body = out.body;
      headers = out.headers ?? {};
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      status = err.status;
      body = err.body;
      headers = err.headers;
    }
    call.status = status;
    const held = this.held;
    if (held && held.pattern.test(path) && held.onlyIf(call))
      await new Promise<void>((resolve) => held.waiting.push(resolve));
    if (res.destroyed) return;
    res.writeHead(status, status === 204 ? headers : { 'content-type': 'application/json', ...headers });
    res.end(status === 204 ? undefined : JSON.stringify(body));
    this.onCall?.(call);
  }

  private route(call: RestCall): { status?: number; body?: unknown; headers?: Record<string, string> } {
    const { method, path } = call;
    const seg = path.split('/').slice(1);
    const is = (m: string, pattern: RegExp) => method === m && pattern.test(path);
    if (is('GET', /^\/gateway\/bot$/)) {
      return {
        body: {
          url: this.gatewayUrl,
          shards: 1,
          session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 },
        },
      };
    }
    if (is('GET', /^\/users\/@me$/)) return { body: userObject(this.bot) };
    if (is('PUT', /^\/applications\/\d+\/commands$/)) return { body: this.overwriteCommands('global', call.body) };
    if (is('PUT', /^\/applications\/\d+\/guilds\/\d+\/commands$/))
      return { body: this.overwriteCommands(seg[3] ?? '', call.body) };
    if (is('POST', /^\/users\/@me\/channels$/)) return { body: this.channelObject(this.openDm(call.body)) };
    if (is('POST', /^\/channels\/\d+\/messages$/))
      return this.postChannelMessage(seg[1] ?? '', call.body, call.files ?? []);
    if (is('GET', /^\/channels\/\d+\/messages$/)) return { body: this.listMessages(seg[1] ?? '', call.query) };
    if (is('GET', /^\/channels\/\d+\/messages\/\d+$/)) {
      const m = this.messages.get(seg[3] ?? '');
      this.requireChannel(seg[1] ?? '');
      if (!m || m.deleted || m.channel_id !== seg[1])
        throw new HttpError(404, { message: 'Unknown Message', code: 10008 });
      return { body: this.readableMessage(m) };
    }
    if (is('PATCH', /^\/channels\/\d+\/messages\/\d+$/))
      return { body: this.editMessage(seg[1] ?? '', seg[3] ?? '', call.body) };
    if (is('DELETE', /^\/channels\/\d+\/messages\/\d+$/)) {
      const m = this.messages.get(seg[3] ?? '');
      if (!m || m.deleted || m.channel_id !== seg[1])
        throw new HttpError(404, { message: 'Unknown Message', code: 10008 });
      m.deleted = true;
      this.dispatch(
        'MESSAGE_DELETE',
        { id: m.id, channel_id: m.channel_id, ...(m.guild_id ? { guild_id: m.guild_id } : {}) },
        m.guild_id ? INTENT.GuildMessages : INTENT.DirectMessages,
      );
      return { status: 204 };
    }
    if (is('POST', /^\/channels\/\d+\/typing$/)) {
      this.requireChannel(seg[1] ?? '');
      return { status: 204 };
    }
    if (is('POST', /^\/channels\/\d+\/messages\/\d+\/threads$/)) {
      const starter = this.messages.get(seg[3] ?? '');
      if (!starter || starter.channel_id !== seg[1])
        throw new HttpError(404, { message: 'Unknown Message', code: 10008 });
      if (this.threadRefusal)
        throw new HttpError(this.threadRefusal.status, {
          message: this.threadRefusal.message,
          code: this.threadRefusal.code,
        });
      const body = threadBodySchema.safeParse(call.body);
      if (!body.success) throw invalidForm('name', 'BASE_TYPE_REQUIRED', 'This field is required');
      return { status: 201, body: this.channelObject(this.openThread(starter, body.data.name, this.bot)) };
    }
    if (is('GET', /^\/channels\/\d+$/)) return { body: this.channelObject(this.requireChannel(seg[1] ?? '')) };
    if (is('GET', /^\/guilds\/\d+\/members\/\d+$/)) {
      // Get Guild Member: every user the fake knows is a member of its one guild, unless marked outside it.
      const user = seg[1] === this.guildId ? this.users.get(seg[3] ?? '') : undefined;
      if (!user || user.outsideGuild) throw new HttpError(404, { message: 'Unknown Member', code: 10007 });
      return { body: { user: userObject(user), ...this.memberObject(user) } };
    }
    if (is('GET', /^\/channels\/\d+\/thread-members\/(\d+|@me)$/)) {
      const thread = this.requireChannel(seg[1] ?? '');
      const userId = seg[3] === '@me' ? this.bot.id : (seg[3] ?? '');
      if (!thread.members.has(userId)) throw new HttpError(404, { message: 'Unknown Member', code: 10007 });
      return { body: { id: thread.id, user_id: userId, join_timestamp: new Date().toISOString(), flags: 0 } };
    }
    if (is('POST', /^\/interactions\/\d+\/[^/]+\/callback$/)) return this.interactionCallback(seg[2] ?? '', call);
    if (is('PATCH', /^\/webhooks\/\d+\/[^/]+\/messages\/@original$/))
      return { body: this.webhookEdit(seg[2] ?? '', call.body) };
    if (is('POST', /^\/webhooks\/\d+\/[^/]+$/)) return { body: this.webhookFollowUp(seg[2] ?? '', call.body) };
    throw new HttpError(404, { message: '404: Not Found', code: 0 });
  }

  private overwriteCommands(key: string, body: unknown): unknown[] {
    const commands = z
      .array(
        z
          .object({ name: z.string().regex(/^[-_\p{L}\p{N}]{1,32}$/u), description: z.string().min(1).max(100) })
          .passthrough(),
      )
      .max(100)
      .safeParse(body);
    if (!commands.success) throw invalidForm('_', 'INVALID_COMMAND', commands.error.message);
    const stored = commands.data.map((c) => ({
      ...c,
      id: nextSnowflake(),
      application_id: this.applicationId,
      version: nextSnowflake(),
    }));
    this.registeredCommands.set(key, stored);
    return stored;
  }

  private validateBody(body: unknown, requireContent: boolean): z.infer<typeof messageBodySchema> {
    const parsed = messageBodySchema.safeParse(body ?? {});
    if (!parsed.success) throw invalidForm('components', 'COMPONENT_INVALID', parsed.error.message);
    const content = parsed.data.content ?? '';
    if (content.length > 2000) throw invalidForm('content', 'BASE_TYPE_MAX_LENGTH', 'Must be 2000 or fewer in length.');
    const empty =
      content.trim() === '' && (parsed.data.embeds ?? []).length === 0 && (parsed.data.components ?? []).length === 0;
    if (requireContent && empty) throw new HttpError(400, { message: 'Cannot send an empty message', code: 50006 });
    return parsed.data;
  }

  /**
   * Create DM (`POST /users/@me/channels`, `{ recipient_id }`): the existing DM channel with that user, or a new one
   * (type 1). Discord opens it for any user it knows; whether a message may be sent there is decided at the post.
   */
  private openDm(raw: unknown): FakeChannel {
    const body = z.object({ recipient_id: z.string().regex(/^\d{17,20}$/) }).safeParse(raw);
    if (!body.success) throw invalidForm('recipient_id', 'NUMBER_TYPE_COERCE', 'Value is not snowflake.');
    const user = this.users.get(body.data.recipient_id);
    if (!user) throw new HttpError(404, { message: 'Unknown User', code: 10013 });
    const dm = [...this.channels.values()].find((c) => c.type === CHANNEL.DM && c.recipients?.[0]?.id === user.id);
    return dm ?? this.addChannel({ id: nextSnowflake(), type: CHANNEL.DM, recipients: [user], members: new Set() });
  }

  /** The DM channel between the bot and a user, if one was opened (by the user writing, or the bot). */
  dmChannelOf(userId: string): FakeChannel | undefined {
    return [...this.channels.values()].find((c) => c.type === CHANNEL.DM && c.recipients?.[0]?.id === userId);
  }

  /** The `allowed_mentions` each bot post carried (undefined: none), by message id. */
  private readonly allowedMentions = new Map<string, unknown>();

  /**
   * Ids of the users a message notified when it was posted, as Discord decides: the users it mentions, all of them
   * without `allowed_mentions`, else those it lists in `users` (or all where its `parse` holds `users`).
   */
  pingedBy(messageId: string): string[] {
    const message = this.messages.get(messageId);
    if (!message) throw new Error(`no message ${messageId}`);
    const ids = message.mentions.map((u) => u.id);
    const allowed = this.allowedMentions.get(messageId);
    if (allowed === undefined || allowed === null || typeof allowed !== 'object') return ids;
    const { parse, users } = allowed as { parse?: unknown; users?: unknown };
    if (Array.isArray(parse) && parse.includes('users')) return ids;
    return Array.isArray(users) ? ids.filter((id) => users.includes(id)) : [];
  }

  private postChannelMessage(
    channelId: string,
    raw: unknown,
    parts: readonly UploadedPart[] = [],
  ): { status?: number; body?: unknown; headers?: Record<string, string> } {
    const channel = this.requireChannel(channelId);
    if (channel.refusal)
      throw new HttpError(channel.refusal.status, { message: channel.refusal.message, code: channel.refusal.code });
    const recipient = channel.type === CHANNEL.DM ? channel.recipients?.[0] : undefined;
    // Discord: a user with DMs from server members closed, or who shares no server with the bot, cannot be sent a DM.
    if (recipient && (recipient.dmsClosed || recipient.outsideGuild))
      throw new HttpError(403, { message: 'Cannot send messages to this user', code: 50007 });
    const { count, windowMs } = this.options.messageLimit;
    const now = Date.now();
    let bucket = this.buckets.get(channelId);
    if (!bucket || now >= bucket.start + windowMs) {
      bucket = { start: now, count: 0 };
      this.buckets.set(channelId, bucket);
    }
    const resetAfter = Math.max(0, bucket.start + windowMs - now) / 1000;
    const limitHeaders = (remaining: number) => ({
      'x-ratelimit-limit': String(count),
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': String((bucket.start + windowMs) / 1000),
      'x-ratelimit-reset-after': resetAfter.toFixed(3),
      'x-ratelimit-bucket': `messages-${channelId}`,
    });
    if (this.forced429.delete(channelId)) {
      this.stats.rateLimited++;
      throw new HttpError(
        429,
        { message: 'You are being rate limited.', retry_after: 0.05, global: false },
        { 'retry-after': '1', 'x-ratelimit-scope': 'shared' },
      );
    }
    if (bucket.count >= count) {
      this.stats.rateLimited++;
      throw new HttpError(
        429,
        { message: 'You are being rate limited.', retry_after: resetAfter, global: false },
        { ...limitHeaders(0), 'retry-after': String(Math.ceil(resetAfter)), 'x-ratelimit-scope': 'user' },
      );
    }
    const files = acceptFiles(raw, parts, this.options.uploadLimitBytes);
    if (isFileProblem(files)) throw new HttpError(files.status, files.body);
    const body = this.validateBody(raw, files.length === 0);
    const nonceKey =
      body.enforce_nonce && body.nonce !== undefined ? `${channelId}:${this.bot.id}:${String(body.nonce)}` : null;
    const earlier = nonceKey ? this.nonces.get(nonceKey) : undefined;
    const existing = earlier && now - earlier.at < NONCE_WINDOW_MS ? this.messages.get(earlier.messageId) : undefined;
    // Discord: with enforce_nonce, a second post with the same nonce returns the first message, and creates none.
    if (existing) return { body: this.messageObject(existing), headers: limitHeaders(count - bucket.count) };
    bucket.count++;
    const attachments = files.length > 0 ? { attachments: files.map((f) => ({ ...f, id: nextSnowflake() })) } : {};
    const message = this.createMessage(channel, this.bot, {
      content: body.content ?? '',
      components: body.components ?? [],
      flags: body.flags ?? 0,
      ...attachments,
    });
    this.allowedMentions.set(message.id, body.allowed_mentions);
    if (nonceKey) this.nonces.set(nonceKey, { messageId: message.id, at: now });
    if (this.forced500.delete(channelId)) throw new HttpError(500, { message: '500: Internal Server Error', code: 0 });
    return { body: this.messageObject(message), headers: limitHeaders(count - bucket.count) };
  }

  /**
   * GET /channels/{id}/messages as Discord answers it: newest first; `before`, `after` or `around`
   * pick the window (`after` gives the messages right after the id); `limit` 1–100, default 50.
   */
  private listMessages(channelId: string, query: URLSearchParams): unknown[] {
    this.requireChannel(channelId);
    const limit = Number(query.get('limit') ?? 50);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      throw invalidForm('limit', 'NUMBER_TYPE_MAX', 'int value should be less than or equal to 100.');
    const all = this.messagesIn(channelId).sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
    const before = query.get('before');
    const after = query.get('after');
    let window: FakeMessage[];
    if (after !== null) window = all.filter((m) => BigInt(m.id) > BigInt(after)).slice(0, limit);
    else window = all.filter((m) => before === null || BigInt(m.id) < BigInt(before)).slice(-limit);
    return window.reverse().map((m) => this.readableMessage(m));
  }

  /**
   * A message as REST returns it: content is empty without the Message Content intent, unless it mentions
   * the bot or is a DM. No `member`: Discord sends the author's member only in MESSAGE_CREATE/UPDATE events.
   */
  private readableMessage(m: FakeMessage): Record<string, unknown> {
    const { member: _member, ...full } = this.messageObject(m);
    const privileged =
      m.guild_id === undefined || m.author.id === this.bot.id || m.mentions.some((u) => u.id === this.bot.id);
    return privileged || this.options.messageContentEnabled
      ? full
      : { ...full, content: '', embeds: [], attachments: [], components: [] };
  }

  private editMessage(channelId: string, messageId: string, raw: unknown): unknown {
    const m = this.messages.get(messageId);
    if (!m || m.deleted || m.channel_id !== channelId)
      throw new HttpError(404, { message: 'Unknown Message', code: 10008 });
    if (m.author.id !== this.bot.id)
      throw new HttpError(403, { message: 'Cannot edit a message authored by another user', code: 50005 });
    const body = this.validateBody(raw, false);
    if (body.content !== undefined) m.content = body.content;
    if (body.components !== undefined) m.components = body.components;
    this.dispatchMessage('MESSAGE_UPDATE', m);
    return this.messageObject(m);
  }

  private interactionCallback(token: string, call: RestCall): { status?: number; body?: unknown } {
    const record = this.interactions.get(token);
    if (!record) throw new HttpError(404, { message: 'Unknown interaction', code: 10062 });
    // As on Discord: a second callback is refused as such whenever it comes; an unanswered one expires after the time limit.
    if (record.callbacks.length > 0)
      throw new HttpError(400, { message: 'Interaction has already been acknowledged.', code: 40060 });
    if (Date.now() - record.createdAt > this.options.interactionTimeoutMs)
      throw new HttpError(404, { message: 'Unknown interaction', code: 10062 });
    const body = callbackSchema.safeParse(call.body);
    if (!body.success) throw invalidForm('type', 'BASE_TYPE_CHOICES', body.error.message);
    const { type } = body.data;
    if (type === 9) {
      if (record.type === 5)
        throw new HttpError(400, { message: 'Interaction has already been acknowledged.', code: 40060 });
      const modal = modalSchema.safeParse(body.data.data);
      if (!modal.success) throw invalidForm('data', 'BASE_TYPE_INVALID', modal.error.message);
      record.callbacks.push({ type, data: modal.data as unknown as Record<string, unknown> });
      record.modal = modal.data;
      return { status: 204 };
    }
    const parsedData = body.data.data === undefined ? undefined : messageBodySchema.safeParse(body.data.data);
    if (parsedData && !parsedData.success) throw invalidForm('data', 'BASE_TYPE_INVALID', parsedData.error.message);
    const data = parsedData?.data;
    if (type === 4 || type === 7) this.validateBody(data, type === 4);
    record.callbacks.push({ type, ...(data ? { data } : {}) });
    if (type === 4)
      record.responses.push({
        content: data?.content ?? '',
        ephemeral: ((data?.flags ?? 0) & EPHEMERAL) !== 0,
        components: data?.components ?? [],
      });
    if (type === 5)
      record.responses.push({ content: '', ephemeral: ((data?.flags ?? 0) & EPHEMERAL) !== 0, components: [] });
    const clicked = record.messageId ? this.messages.get(record.messageId) : undefined;
    if (type === 7 && clicked) this.editMessage(clicked.channel_id, clicked.id, data);
    const withResponse = call.query.get('with_response') === 'true';
    return withResponse ? { body: { interaction: { id: record.id, type: 2 }, resource: { type } } } : { status: 204 };
  }

  private webhookEdit(token: string, raw: unknown): unknown {
    const record = this.interactions.get(token);
    const clicked = record?.messageId ? this.messages.get(record.messageId) : undefined;
    if (clicked && record?.callbacks[0]?.type === 6) return this.editMessage(clicked.channel_id, clicked.id, raw);
    const original = record?.responses[0];
    if (!record || !original) throw new HttpError(404, { message: 'Unknown Message', code: 10008 });
    const body = this.validateBody(raw, false);
    if (body.content !== undefined) original.content = body.content;
    if (body.components !== undefined) original.components = body.components;
    return { id: nextSnowflake(), content: original.content, flags: original.ephemeral ? EPHEMERAL : 0 };
  }

  private webhookFollowUp(token: string, raw: unknown): unknown {
    const record = this.interactions.get(token);
    if (!record || record.callbacks.length === 0) throw new HttpError(404, { message: 'Unknown Webhook', code: 10015 });
    const body = this.validateBody(raw, true);
    const ephemeral = ((body.flags ?? 0) & EPHEMERAL) !== 0;
    record.responses.push({ content: body.content ?? '', ephemeral, components: body.components ?? [] });
    return { id: nextSnowflake(), content: body.content ?? '', flags: body.flags ?? 0 };
  }
}

/** How long Discord remembers a nonce for enforce_nonce ("the past few minutes"). */
const NONCE_WINDOW_MS = 5 * 60_000;

/** The bot token the fake accepts (`Authorization: Bot <token>`). */
export const FAKE_DISCORD_TOKEN = 'fake-discord-token';

/** Starts a fake Discord on 127.0.0.1 with a free port. */
export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const fake = new FakeDiscord(options);
  await fake.listen();
  return fake;
}
