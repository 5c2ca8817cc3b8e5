import { parseActionId } from '../../src/chat/action-id.js';
import { parsePrivateAnswerActionId } from '../../src/chat/private-answers.js';
import type { AdapterCapabilities, ChatAdapter, ConnectionState, OutboundMessage, PostedMessage, WorkingStatus } from '../../src/chat/chat-adapter.js';
import type { ConversationHistory, HistoryMessage } from '../../src/chat/conversation-history.js';
import { channelKey, conversationKey, conversationRefSchema, type ChannelRef, type ConversationRef } from '../../src/chat/conversation-ref.js';
import type { CommandName, CommandReply, InboundMessage, InboundSink } from '../../src/chat/inbound.js';
import { splitText } from '../../src/chat/split-text.js';

/** A message the adapter "posted", as the platform would store it. */
export interface MemoryPost {
  id: string;
  conversation: string;
  text: string;
  mentionUserId?: string;
  buttons: { actionId: string; label: string }[];
  edited: boolean;
}

/** A message as this fake platform delivers it to the adapter, before the adapter decides it is for the core. */
export interface MemoryEvent {
  readonly message: InboundMessage;
  /** A bot wrote it: this one (its own posts come back, as on Slack and Discord) or another. */
  readonly fromBot: boolean;
}

/** Where a message lives on the memory platform. */
export interface MemoryLocation {
  readonly workspace: string;
  readonly channel: string;
  readonly thread: string | null;
}

/** Encodes a memory-platform location (`memory:<workspace>:<channel>:<thread|->`); null when a part would break the key. */
export function toMemoryConversation(loc: MemoryLocation): ConversationRef | null {
  const parsed = conversationRefSchema.safeParse({ platform: 'memory', ...loc });
  return parsed.success ? parsed.data : null;
}

/** Decodes a ref made by toMemoryConversation; null when it is not the memory platform's. */
export function fromMemoryConversation(ref: ConversationRef): MemoryLocation | null {
  if (ref.platform !== 'memory' || !conversationRefSchema.safeParse(ref).success) return null;
  return { workspace: ref.workspace, channel: ref.channel, thread: ref.thread };
}

/** The bot's own user id on this fake platform. */
export const MEMORY_BOT_ID = 'UBOT';

/** Shared across instances so ids stay unique across a simulated restart, as platform ids are. */
let idCounter = 0;

/**
 * The in-memory ChatAdapter: records what the core posts and drives inbound events. Like the real
 * platforms it delivers the bot's own posts back to itself, and like the real adapters it drops those
 * and other bots' messages before the sink. It passes the same contract suite as the real adapters, so
 * integration tests can trust it.
 */

export class MemoryAdapter implements ChatAdapter {
  readonly maxMessageLength = 500;
  /** Its ephemerals are recorded apart from posts, as a platform with private notices shows them. */
  readonly privateNotices: boolean = true;
  readonly posts: MemoryPost[] = [];
  readonly ephemerals: { conversation: string; userId: string; text: string }[] = [];
  readonly working = new Map<string, WorkingStatus>();
  /** Every setWorking call, in order (null = cleared). */
  readonly workingLog: { conversation: string; status: WorkingStatus | null }[] = [];
  timezones = new Map<string, string>();
  /** Called after every post (benchmarks wait on it instead of polling). */
  onPost: ((post: MemoryPost) => void) | null = null;
  /** When set, postMessage waits for this before "sending" (simulates a slow platform). */
  postGate: Promise<void> | null = null;
  /** Everything said on this fake platform, people's and the bot's, oldest first. */
  readonly said: { conversation: string; channel: string; topLevel: boolean; message: HistoryMessage }[] = [];
  /** Every event the platform delivered (people's, bots', the bot's own echoes), oldest first. */
  readonly delivered: MemoryEvent[] = [];
  /** Ids of delivered messages the adapter kept from the core because a bot wrote them. */
  readonly droppedFromBots: string[] = [];
  /** Reads `said`: a conversation's messages, or a channel's top-level ones (thread-less conversations). */
  private readonly history: ConversationHistory = {
    readThread: async (conversation, { limit }) => {
      const key = conversationKey(conversation);
      const all = this.said.filter((s) => s.conversation === key).map((s) => s.message);
      return { messages: conversation.thread ? all.slice(0, limit) : all.slice(-limit), truncated: all.length > limit };
    },
    readChannel: async (conversation, { limit, since }) => {
      const key = channelKey(conversation);
      const all = this.said.filter((s) => s.channel === key && s.topLevel && (since === undefined || Date.parse(s.message.time) >= since)).map((s) => s.message);
      return { messages: all.slice(-limit), truncated: all.length > limit };
    },
  };
  /** Messages shown to one person alone with their buttons (a held answer's Share in thread / Keep private). */
  readonly privateChoices: { conversation: string; userId: string; text: string; buttons: { actionId: string; label: string }[] }[] = [];
  readonly capabilities: AdapterCapabilities = {
    history: this.history,
    timezone: { fetchUserTimezone: async (userId) => this.timezones.get(userId) ?? null },
    // As on Slack: a `D…` channel is a DM with the bot, every other conversation has other readers.
    privateAnswers: {
      othersRead: (conversation) => !conversation.channel.startsWith('D'),
      showPrivately: async (conversation, userId, message) => {
        this.privateChoices.push({ conversation: conversationKey(conversation), userId, text: message.text, buttons: [...(message.buttons ?? [])] });
        this.ephemerals.push({ conversation: conversationKey(conversation), userId, text: message.text });
        return { kind: 'shown' };
      },
    },
  };
  private sink: InboundSink | null = null;
  private started = false;

  constructor(
    readonly workspace = 'W1',
    /** Another platform name lets access rules written for Slack or Discord ids apply to it. */
    readonly platform = 'memory',
  ) {}

  async start(sink: InboundSink): Promise<void> {
    this.sink = sink;
    this.started = true;
  }

  async stop(): Promise<void> {
    this.started = false;
  }

  connectionState(): ConnectionState {
    return this.started ? { connected: true } : { connected: false, detail: 'not started' };
  }

  async postMessage(conversation: ConversationRef, message: OutboundMessage): Promise<PostedMessage> {
    if (this.postGate) await this.postGate;
    const text = `${message.mentionUserId ? `<@${message.mentionUserId}> ` : ''}${message.text}`;
    const pieces = splitText(text, this.maxMessageLength);
    let id = '';
    pieces.forEach((piece, i) => {
      id = `m${++idCounter}`;
      this.posts.push({
        id,
        conversation: conversationKey(conversation),
        text: piece,
        ...(message.mentionUserId ? { mentionUserId: message.mentionUserId } : {}),
        buttons: i === pieces.length - 1 ? [...(message.buttons ?? [])] : [],
        edited: false,
      });
      this.onPost?.(this.posts.at(-1)!);
      this.echo({ messageId: id, conversation, userId: MEMORY_BOT_ID, text: piece });
    });
    this.record(conversation, { id, author: { id: MEMORY_BOT_ID, name: 'Errand', isBot: true, isSelf: true }, time: new Date().toISOString(), text });
    return { id };
  }

  async editMessage(_conversation: ConversationRef, messageId: string, message: OutboundMessage): Promise<void> {
    const post = this.posts.find((p) => p.id === messageId);
    if (!post) throw new Error(`message_not_found: ${messageId}`);
    post.text = message.text;
    post.buttons = [...(message.buttons ?? [])];
    post.edited = true;
  }

  async setWorking(conversation: ConversationRef, status: WorkingStatus | null): Promise<void> {
    const key = conversationKey(conversation);
    this.workingLog.push({ conversation: key, status });
    if (status) this.working.set(key, status);
    else this.working.delete(key);
  }

  async openThread(channel: ChannelRef, messageId: string): Promise<ConversationRef> {
    return { ...channel, thread: messageId };
  }

  async postEphemeral(conversation: ConversationRef, userId: string, text: string): Promise<void> {
    this.ephemerals.push({ conversation: conversationKey(conversation), userId, text });
  }

  // ---- drivers ----

  /** A conversation ref on this fake platform. */
  thread(channel = 'C1', thread: string | null = 'T1'): ConversationRef {
    return { platform: this.platform, workspace: this.workspace, channel, thread };
  }

  /** Delivers a user's message; returns its message id (reuse it to simulate a redelivery). */
  async say(
    conversation: ConversationRef,
    text: string,
    opts: { userId?: string; messageId?: string; startThread?: boolean; direct?: boolean; roles?: readonly string[] } = {},
  ): Promise<string> {
    const messageId = opts.messageId ?? `in${++idCounter}`;
    const userId = opts.userId ?? 'U1';
    if (!this.said.some((s) => s.message.id === messageId)) this.record(conversation, { id: messageId, author: { id: userId, name: userId, isBot: false, isSelf: false }, time: new Date().toISOString(), text });
    const msg: InboundMessage = {
      messageId,
      conversation,
      userId,
      text,
      ...(opts.startThread ? { startThread: { name: text.slice(0, 50) || 'Errand' } } : {}),
      ...(opts.direct ? { direct: true } : {}),
      ...(opts.roles ? { roles: opts.roles } : {}),
    };
    await this.deliver({ message: msg, fromBot: false });
    return messageId;
  }

  /** Another bot posts in a conversation; delivered like any message and dropped by the adapter. */
  async sayAsOtherBot(conversation: ConversationRef, text: string, botUserId = 'UOTHERBOT'): Promise<string> {
    const messageId = `in${++idCounter}`;
    this.record(conversation, { id: messageId, author: { id: botUserId, name: botUserId, isBot: true, isSelf: false }, time: new Date().toISOString(), text });
    await this.deliver({ message: { messageId, conversation, userId: botUserId, text }, fromBot: true });
    return messageId;
  }

  /** What the platform delivers reaches the adapter here; only people's messages go on to the core. */
  async deliver(event: MemoryEvent): Promise<void> {
    this.delivered.push(event);
    if (event.fromBot) {
      this.droppedFromBots.push(event.message.messageId);
      return;
    }
    await this.requireSink().onMessage(event.message);
  }

  async command(name: CommandName, args: string, channel: ChannelRef, conversation: ConversationRef | null, userId = 'U1'): Promise<CommandReply> {
    return this.requireSink().onCommand({ name, args, channel, conversation, userId });
  }

  /** Clicks a button that the core posted. */
  async click(actionId: string, conversation: ConversationRef, label = '', userId = 'U1'): Promise<CommandReply | null> {
    const ref = parseActionId(actionId);
    if (!ref) throw new Error(`not an Errand action id: ${actionId}`);
    const sink = this.requireSink();
    if (ref.kind === 'stop') return sink.onAction({ kind: 'stop', runId: ref.runId, userId, conversation });
    return sink.onAction({ kind: 'answer', runId: ref.runId, questionId: ref.questionId, answer: label, userId, conversation, eventId: `click${++idCounter}` });
  }

  /** `userId` clicks Share in thread / Keep private on an answer shown to them alone (`privateChoices`). */
  async choosePrivately(actionId: string, userId = 'U1'): Promise<CommandReply | null> {
    const ref = parsePrivateAnswerActionId(actionId);
    if (!ref) throw new Error(`not a Share / Keep private action id: ${actionId}`);
    return this.requireSink().onAction({ kind: 'private_answer', ...ref, platform: this.platform, userId });
  }

  /** Texts posted in one conversation, in order. */
  textsIn(conversation: ConversationRef): string[] {
    const key = conversationKey(conversation);
    return this.posts.filter((p) => p.conversation === key).map((p) => p.text);
  }

  /** The platform hands the bot's own post back to it, after the post call returned (as Slack and Discord do). */
  private echo(message: InboundMessage): void {
    if (!this.started) return;
    setImmediate(() => void this.deliver({ message, fromBot: true }));
  }

  private record(conversation: ConversationRef, message: HistoryMessage): void {
    this.said.push({ conversation: conversationKey(conversation), channel: channelKey(conversation), topLevel: conversation.thread === null, message });
  }

  private requireSink(): InboundSink {
    if (!this.sink) throw new Error('MemoryAdapter not started');
    return this.sink;
  }
}
