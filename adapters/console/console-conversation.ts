import { conversationRefSchema, type ChannelRef, type ConversationRef } from '../../src/chat/conversation-ref.js';

/** The console's one channel: the terminal. */
export const CONSOLE_CHANNEL: ChannelRef = { platform: 'console', workspace: 'local', channel: 'console' };

/** Where a console message lives: the terminal, and the session (or a thread opened on a message) in it. */
export interface ConsoleLocation {
  /** The session id for the session's own conversation, a message id for a thread opened on it, null for the terminal itself. */
  readonly thread: string | null;
}

/** Encodes a console location as a ConversationRef (`console:local:console:<thread|->`); null when the thread id would break the key. */
export function toConversationRef(loc: ConsoleLocation): ConversationRef | null {
  const parsed = conversationRefSchema.safeParse({ ...CONSOLE_CHANNEL, thread: loc.thread });
  return parsed.success ? parsed.data : null;
}

/** Decodes a ConversationRef made by toConversationRef; null when it is not the console's. */
export function fromConversationRef(ref: ConversationRef): ConsoleLocation | null {
  if (
    ref.platform !== CONSOLE_CHANNEL.platform ||
    ref.workspace !== CONSOLE_CHANNEL.workspace ||
    ref.channel !== CONSOLE_CHANNEL.channel
  )
    return null;
  return toConversationRef({ thread: ref.thread }) ? { thread: ref.thread } : null;
}
