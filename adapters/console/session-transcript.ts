import type { ConversationHistory, HistoryAuthor, HistoryMessage } from '../../src/chat/conversation-history.js';

/** What one console session said, in order: the history the agent can read back. */
export interface SessionTranscript {
  /** Records a line; returns its id. */
  add(author: 'user' | 'bot', text: string, id?: string): string;
  /** Replaces the text of a recorded line (the bot edited its message). */
  edit(id: string, text: string): void;
  readonly history: ConversationHistory;
}

const USER: HistoryAuthor = { id: 'you', name: 'you', isBot: false, isSelf: false };
const BOT: HistoryAuthor = { id: 'errand', name: 'Errand', isBot: true, isSelf: true };

/**
 * The console's history: what the user typed and what the bot printed, kept in memory for the
 * session (the oldest lines beyond `capacity` are forgotten). The console has one conversation,
 * so the thread and the channel are both this transcript.
 */
export function createSessionTranscript(now: () => number = Date.now, capacity = 2000): SessionTranscript {
  const lines: HistoryMessage[] = [];
  let dropped = false;
  let seq = 0;
  return {
    add(author, text, id = `line-${++seq}`) {
      lines.push({ id, author: author === 'user' ? USER : BOT, time: new Date(now()).toISOString(), text });
      if (lines.length > capacity) {
        lines.shift();
        dropped = true;
      }
      return id;
    },
    edit(id, text) {
      const i = lines.findIndex((l) => l.id === id);
      if (i >= 0) lines[i] = { ...lines[i]!, text };
    },
    history: {
      async readThread(_conversation, { limit }) {
        return { messages: lines.slice(0, limit), truncated: dropped || lines.length > limit };
      },
      async readChannel(_conversation, { limit, since }) {
        const recent = since === undefined ? lines : lines.filter((l) => Date.parse(l.time) >= since);
        return { messages: recent.slice(-limit), truncated: recent.length > limit || (dropped && since === undefined) };
      },
    },
  };
}
