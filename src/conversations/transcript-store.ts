import type { ImagePart, MessageRole, MessageRow, StoredToolCall } from '../db/schema.js';

export interface TranscriptEntry {
  conversationId: string;
  runId: string | null;
  role: MessageRole;
  content: string | null;
  toolCalls?: StoredToolCall[] | null;
  toolCallId?: string | null;
  authorId?: string | null;
  platformMessageId?: string | null;
  /** Images sent with a user message. */
  images?: readonly ImagePart[] | null;
}

/** The persisted history of each conversation; written step by step so a run survives a restart. */
export interface TranscriptStore {
  append(entry: TranscriptEntry): Promise<number>;
  /** Newest `limit` messages with id below `beforeId` (default: all), oldest first. */
  recent(conversationId: string, limit: number, beforeId?: number): Promise<MessageRow[]>;
}
