import { parseActionId } from '../../src/chat/action-id.js';
import { parsePrivateAnswerActionId } from '../../src/chat/private-answers.js';
import type {
  AdapterCapabilities,
  ChatAdapter,
  ConnectionState,
  OutboundMessage,
  PostedMessage,
  WorkingStatus,
} from '../../src/chat/chat-adapter.js';
import type { ConversationHistory } from '../../src/chat/conversation-history.js';
import {
  channelKey,
  conversationKey,
  conversationRefSchema,
  type ChannelRef,
  type ConversationRef,
} from '../../src/chat/conversation-ref.js';
import type { CommandName, CommandReply, InboundMessage, InboundSink } from '../../src/chat/inbound.js';
import { fitPieces } from '../../src/chat/fit-pieces.js';
import { AdapterError } from '../../src/errors.js';
import { stepList } from '../../src/chat/step-lines.js';
import {
  MEMORY_BOT_ID,
  MemoryServer,
  nextMemoryId,
  type MemoryButton,
  type MemoryEvent,
  type MemoryPost,
  type MemorySaid,
} from './memory-server.js';

export { MEMORY_BOT_ID, MemoryServer, type MemoryEvent, type MemoryPost } from './memory-server.js';

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

/** The status line's text while the bot works: steps, where the run reported some, under it. */
const WORKING_TEXT = '⏳ Working… press Stop to stop me.';

/**
 * The in-memory ChatAdapter: talks to its fake platform (`server`, a MemoryServer) as the real adapters talk to
 * Slack and Discord, and drives inbound events. Like the real platforms the server delivers the bot's own posts
 * back to it, and like the real adapters it drops those and other bots' messages before the sink. It passes the
 * same contract suite as the real adapters, graded from what the server received, so integration tests can
 * trust it. `posts`, `ephemerals`, `said` and `delivered` read the server; `working` and `workingLog` are the
 * adapter's own record of what the core asked for.
 */
export class MemoryAdapter implements ChatAdapter {
  readonly maxMessageLength = 500;
  /** Its ephemerals are recorded apart from posts, as a platform with private notices shows them. */
  readonly privateNotices: boolean = true;
  /** The fake platform this adapter talks to. */
  readonly server = new MemoryServer();
  readonly working = new Map<string, WorkingStatus>();
  /** Every setWorking call, in order (null = cleared). */
  readonly workingLog: { conversation: string; status: WorkingStatus | null }[] = [];
  /** Called after every post (benchmarks wait on it instead of polling). */
  onPost: ((post: MemoryPost) => void) | null = null;
  /** When set, postMessage waits for this before "sending" (simulates a slow platform). */
  postGate: Promise<void> | null = null;
  /** Ids of delivered messages the adapter kept from the core because a bot wrote them. */
  readonly droppedFromBots: string[] = [];
  /** Reads the server's history: a conversation's messages, or a channel's top-level ones (thread-less conversations). */
  private readonly history: ConversationHistory = {
    readThread: async (conversation, { limit }) => {
      const key = conversationKey(conversation);
      const all = this.server.said.filter((s) => s.conversation === key).map((s) => s.message);
      return { messages: conversation.thread ? all.slice(0, limit) : all.slice(-limit), truncated: all.length > limit };
    },
    readChannel: async (conversation, { limit, since }) => {
      const key = channelKey(conversation);
      const all = this.server.said
        .filter((s) => s.channel === key && s.topLevel && (since === undefined || Date.parse(s.message.time) >= since))
        .map((s) => s.message);
      return { messages: all.slice(-limit), truncated: all.length > limit };
    },
  };
  readonly capabilities: AdapterCapabilities = {
    history: this.history,
    timezone: { fetchUserTimezone: async (userId) => this.server.timezones.get(userId) ?? null },
    // As on Slack: a `D…` channel is a DM with the bot, every other conversation has other readers.
    privateAnswers: {
      othersRead: (conversation) => !isDirect(conversation),
      showPrivately: async (conversation, userId, message) => {
        this.server.notify(conversation, userId, { text: message.text, buttons: buttonsOf(message) });
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

  /** Every message the bot posted, as the server stores them. */
  get posts(): MemoryPost[] {
    return this.server.messages;
  }

  /** What was shown to one person alone (notices and held answers), as the server shows them. */
  get ephemerals(): { conversation: string; userId: string; text: string }[] {
    return this.server.notices.map(({ conversation, userId, text }) => ({ conversation, userId, text }));
  }

  /** Messages shown to one person alone with their buttons (a held answer's Share in thread / Keep private). */
  get privateChoices(): {
    conversation: string;
    userId: string;
    text: string;
    buttons: { actionId: string; label: string }[];
  }[] {
    return this.server.notices.filter((n) => n.buttons.length > 0);
  }

  /** People's timezones, as the server's profiles tell them. */
  get timezones(): Map<string, string> {
    return this.server.timezones;
  }

  /** Everything said on this fake platform, people's and the bot's, oldest first. */
  get said(): MemorySaid[] {
    return this.server.said;
  }

  /** Every event the platform delivered (people's, bots', the bot's own echoes), oldest first. */
  get delivered(): MemoryEvent[] {
    return this.server.delivered;
  }

  async start(sink: InboundSink): Promise<void> {
    this.sink = sink;
    this.started = true;
    this.server.connect((event) => this.deliver(event));
  }

  async stop(): Promise<void> {
    this.started = false;
    this.server.disconnect();
  }

  connectionState(): ConnectionState {
    return this.started ? { connected: true } : { connected: false, detail: 'not started' };
  }

  async postMessage(conversation: ConversationRef, message: OutboundMessage): Promise<PostedMessage> {
    if (this.postGate) await this.postGate;
    const text = `${message.mentionUserId ? `<@${message.mentionUserId}> ` : ''}${message.text}`;
    // One message, as the real adapters post: the outbox posts the pieces `render` made.
    if (text.length > this.maxMessageLength)
      throw new AdapterError(`a message of ${text.length} characters is over the limit of ${this.maxMessageLength}`);
    const post = this.server.post(conversation, {
      text,
      ...(message.mentionUserId ? { mentionUserId: message.mentionUserId } : {}),
      buttons: buttonsOf(message),
    });
    this.onPost?.(post);
    return { id: post.id };
  }

  render(text: string, mentionUserId?: string): readonly string[] {
    const mention = mentionUserId ? `<@${mentionUserId}> `.length : 0;
    return fitPieces(text, this.maxMessageLength, (piece, first) => (first ? mention : 0) + piece.length);
  }

  async editMessage(_conversation: ConversationRef, messageId: string, message: OutboundMessage): Promise<void> {
    this.server.update(messageId, { text: message.text, buttons: buttonsOf(message) });
  }

  async setWorking(conversation: ConversationRef, status: WorkingStatus | null): Promise<void> {
    const key = conversationKey(conversation);
    this.workingLog.push({ conversation: key, status });
    if (status) this.working.set(key, status);
    else this.working.delete(key);
    const steps = status?.steps && status.steps.length > 0 ? `\n${stepList(status.steps)}` : '';
    this.server.setStatusLine(
      conversation,
      status ? { text: `${WORKING_TEXT}${steps}`, stop: { actionId: status.stopActionId, label: 'Stop' } } : null,
    );
  }

  /** A thread on the message, except in a DM (a `D…` channel), where none can be opened: the work stays in the DM. */
  async openThread(channel: ChannelRef, messageId: string): Promise<ConversationRef> {
    return isDirect(channel) ? { ...channel, thread: null } : { ...channel, thread: messageId };
  }

  async postEphemeral(conversation: ConversationRef, userId: string, text: string): Promise<void> {
    this.server.notify(conversation, userId, { text, buttons: [] });
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
    opts: {
      userId?: string;
      messageId?: string;
      startThread?: boolean;
      direct?: boolean;
      roles?: readonly string[];
    } = {},
  ): Promise<string> {
    this.requireSink();
    const messageId = opts.messageId ?? nextMemoryId('in');
    const msg: InboundMessage = {
      messageId,
      conversation,
      userId: opts.userId ?? 'U1',
      text,
      ...(opts.startThread ? { startThread: { name: text.slice(0, 50) || 'Errand' } } : {}),
      ...(opts.direct ? { direct: true } : {}),
      ...(opts.roles ? { roles: opts.roles } : {}),
    };
    await this.server.userMessage(msg, { isBot: false });
    return messageId;
  }

  /** Another bot posts in a conversation; delivered like any message and dropped by the adapter. */
  async sayAsOtherBot(conversation: ConversationRef, text: string, botUserId = 'UOTHERBOT'): Promise<string> {
    const messageId = nextMemoryId('in');
    await this.server.userMessage({ messageId, conversation, userId: botUserId, text }, { isBot: true });
    return messageId;
  }

  /** What the platform delivers reaches the adapter here; only people's messages go on to the core. */
  async deliver(event: MemoryEvent): Promise<void> {
    if (event.fromBot || event.message.userId === MEMORY_BOT_ID) {
      this.droppedFromBots.push(event.message.messageId);
      return;
    }
    await this.requireSink().onMessage(event.message);
  }

  async command(
    name: CommandName,
    args: string,
    channel: ChannelRef,
    conversation: ConversationRef | null,
    userId = 'U1',
  ): Promise<CommandReply> {
    return this.requireSink().onCommand({ name, args, channel, conversation, userId });
  }

  /** Clicks a button that the core posted. */
  async click(
    actionId: string,
    conversation: ConversationRef,
    label = '',
    userId = 'U1',
  ): Promise<CommandReply | null> {
    const ref = parseActionId(actionId);
    if (!ref) throw new Error(`not an Errand action id: ${actionId}`);
    const sink = this.requireSink();
    if (ref.kind === 'stop') return sink.onAction({ kind: 'stop', runId: ref.runId, userId, conversation });
    return sink.onAction({
      kind: 'answer',
      runId: ref.runId,
      questionId: ref.questionId,
      answer: label,
      userId,
      conversation,
      eventId: nextMemoryId('click'),
    });
  }

  /** `userId` clicks Share in thread / Keep private on an answer shown to them alone (`privateChoices`). */
  async choosePrivately(actionId: string, userId = 'U1'): Promise<CommandReply | null> {
    const ref = parsePrivateAnswerActionId(actionId);
    if (!ref) throw new Error(`not a Share / Keep private action id: ${actionId}`);
    return this.requireSink().onAction({ kind: 'private_answer', ...ref, platform: this.platform, userId });
  }

  /** Texts posted in one conversation, in order. */
  textsIn(conversation: ConversationRef): string[] {
    return this.server.messagesIn(conversation).map((p) => p.text);
  }

  private requireSink(): InboundSink {
    if (!this.sink) throw new Error('MemoryAdapter not started');
    return this.sink;
  }
}

/** A DM with the bot: a `D…` channel, as on Slack. */
function isDirect(conversation: { channel: string }): boolean {
  return conversation.channel.startsWith('D');
}

/** The buttons of an outbound message as the platform keeps them. */
function buttonsOf(message: OutboundMessage): MemoryButton[] {
  return [...(message.buttons ?? [])];
}
