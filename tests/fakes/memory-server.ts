import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import { channelKey, conversationKey } from '../../src/chat/conversation-ref.js';
import type { HistoryMessage } from '../../src/chat/conversation-history.js';
import type { InboundMessage } from '../../src/chat/inbound.js';

/** A button as the memory platform shows it. */
export interface MemoryButton {
  readonly actionId: string;
  readonly label: string;
  readonly style?: 'primary' | 'danger';
}

/** A message the bot posted, as the platform stores it. */
export interface MemoryPost {
  id: string;
  conversation: string;
  text: string;
  mentionUserId?: string;
  buttons: MemoryButton[];
  edited: boolean;
}

/** A message shown to one person alone (an ephemeral notice, a held answer with its buttons). */
export interface MemoryNotice {
  conversation: string;
  userId: string;
  text: string;
  buttons: MemoryButton[];
}

/** The line the platform shows under a conversation while the bot works: its text (steps included) and its Stop button. */
export interface MemoryStatusLine {
  text: string;
  stop: MemoryButton;
}

/** A message as this fake platform delivers it to the adapter, before the adapter decides it is for the core. */
export interface MemoryEvent {
  readonly message: InboundMessage;
  /** A bot wrote it: this one (its own posts come back, as on Slack and Discord) or another. */
  readonly fromBot: boolean;
}

/** One message said anywhere on the platform (people's and bots'), as its history keeps it. */
export interface MemorySaid {
  conversation: string;
  channel: string;
  topLevel: boolean;
  message: HistoryMessage;
}

/** The bot's own user id on this fake platform. */
export const MEMORY_BOT_ID = 'UBOT';

/** Shared across instances so ids stay unique across a simulated restart, as platform ids are. */
let idCounter = 0;

/** A new platform id with this prefix (`m…` for the bot's posts, `in…` for people's messages). */
export function nextMemoryId(prefix: string): string {
  return `${prefix}${++idCounter}`;
}

/**
 * The memory platform itself, apart from the adapter that talks to it: what the in-memory adapter sends lands
 * here as a platform would keep it (messages by id, notices per person, the status line of each conversation,
 * the history), and what happens here (people's messages, the bot's own posts coming back) is delivered to the
 * adapter that connected. The contract suite reads this object, never the adapter's own records, so a member
 * the adapter gets wrong shows here as it would on Slack or Discord.
 */
export class MemoryServer {
  readonly messages: MemoryPost[] = [];
  readonly notices: MemoryNotice[] = [];
  readonly statusLines = new Map<string, MemoryStatusLine>();
  readonly said: MemorySaid[] = [];
  /** Every event delivered to the adapter (people's, bots', the bot's own echoes), oldest first. */
  readonly delivered: MemoryEvent[] = [];
  /** People's IANA timezones, as the platform's profiles tell them. */
  readonly timezones = new Map<string, string>();
  private listener: ((event: MemoryEvent) => Promise<void>) | null = null;

  /** The adapter connects: every event from now on is handed to `listener`. */
  connect(listener: (event: MemoryEvent) => Promise<void>): void {
    this.listener = listener;
  }

  disconnect(): void {
    this.listener = null;
  }

  /** Stores one message of the bot and, like Slack and Discord, delivers it back to the adapter once the call returned. */
  post(
    conversation: ConversationRef,
    message: { text: string; mentionUserId?: string; buttons: MemoryButton[] },
  ): MemoryPost {
    const post: MemoryPost = {
      id: nextMemoryId('m'),
      conversation: conversationKey(conversation),
      text: message.text,
      ...(message.mentionUserId ? { mentionUserId: message.mentionUserId } : {}),
      buttons: message.buttons,
      edited: false,
    };
    this.messages.push(post);
    this.record(conversation, {
      id: post.id,
      author: { id: MEMORY_BOT_ID, name: 'Errand', isBot: true, isSelf: true },
      time: new Date().toISOString(),
      text: post.text,
    });
    if (this.listener)
      setImmediate(
        () =>
          void this.deliver({
            message: { messageId: post.id, conversation, userId: MEMORY_BOT_ID, text: post.text },
            fromBot: true,
          }),
      );
    return post;
  }

  /** Replaces a posted message's text and buttons; throws `message_not_found` as a platform answers. */
  update(messageId: string, message: { text: string; buttons: MemoryButton[] }): void {
    const post = this.messages.find((p) => p.id === messageId);
    if (!post) throw new Error(`message_not_found: ${messageId}`);
    post.text = message.text;
    post.buttons = message.buttons;
    post.edited = true;
    const said = this.said.find((s) => s.message.id === messageId);
    if (said) said.message = { ...said.message, text: message.text };
  }

  /** Shows a message to one person alone in a conversation. */
  notify(conversation: ConversationRef, userId: string, message: { text: string; buttons: MemoryButton[] }): void {
    this.notices.push({
      conversation: conversationKey(conversation),
      userId,
      text: message.text,
      buttons: message.buttons,
    });
  }

  /** Shows (or, null, removes) the status line of a conversation. */
  setStatusLine(conversation: ConversationRef, line: MemoryStatusLine | null): void {
    const key = conversationKey(conversation);
    if (line) this.statusLines.set(key, line);
    else this.statusLines.delete(key);
  }

  /** The bot's messages in one conversation, oldest first. */
  messagesIn(conversation: ConversationRef): MemoryPost[] {
    const key = conversationKey(conversation);
    return this.messages.filter((p) => p.conversation === key);
  }

  /** What `userId` was shown alone in one conversation, oldest first. */
  noticesTo(userId: string, conversation: ConversationRef): MemoryNotice[] {
    const key = conversationKey(conversation);
    return this.notices.filter((n) => n.userId === userId && n.conversation === key);
  }

  /** A person (or another bot) writes: kept in the history (once per id), then delivered to the adapter. */
  async userMessage(message: InboundMessage, author: { isBot: boolean }): Promise<void> {
    if (!this.said.some((s) => s.message.id === message.messageId)) {
      this.record(message.conversation, {
        id: message.messageId,
        author: { id: message.userId, name: message.userId, isBot: author.isBot, isSelf: false },
        time: new Date().toISOString(),
        text: message.text,
      });
    }
    await this.deliver({ message, fromBot: author.isBot });
  }

  /** Hands an event to the connected adapter (a redelivery is the same event again). */
  async deliver(event: MemoryEvent): Promise<void> {
    this.delivered.push(event);
    await this.listener?.(event);
  }

  private record(conversation: ConversationRef, message: HistoryMessage): void {
    this.said.push({
      conversation: conversationKey(conversation),
      channel: channelKey(conversation),
      topLevel: conversation.thread === null,
      message,
    });
  }
}
