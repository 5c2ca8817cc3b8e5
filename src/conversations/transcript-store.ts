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
  /** The person (platform user id) the row is private to: their sign-in's data or `me` memories, and what was made of it. */
  privateTo?: string | null;
  /** Long-term memories whose text the row shows (a `recall` result): a `forget` takes each out of it. */
  memoryIds?: readonly number[] | null;
}

/** The persisted history of each conversation; written step by step so a run survives a restart. */
export interface TranscriptStore {
  append(entry: TranscriptEntry): Promise<number>;
  /** Newest `limit` messages with id below `beforeId` (default: all), oldest first. */
  recent(conversationId: string, limit: number, beforeId?: number): Promise<MessageRow[]>;
  /**
   * The conversation's rows private to `owner` with `afterId < id <= throughId`, oldest first, at most `limit` (the
   * oldest ones): what fell out of the shared context that only their own summary may take in.
   */
  privateRows(
    conversationId: string,
    owner: string,
    afterId: number,
    throughId: number,
    limit: number,
  ): Promise<MessageRow[]>;
}
