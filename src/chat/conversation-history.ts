import type { ConversationRef } from './conversation-ref.js';
import type { InboundAttachment } from './inbound.js';

/** Who wrote a message in a platform's history. */
export interface HistoryAuthor {
  readonly id: string;
  /** Display name where the platform gives one, else the id. */
  readonly name: string;
  /** Any bot or app, this one included. */
  readonly isBot: boolean;
  /** This bot itself, so the model can tell its own words from everyone else's. */
  readonly isSelf: boolean;
}

/** One message as the platform stores it, in platform-neutral form. */
export interface HistoryMessage {
  readonly id: string;
  readonly author: HistoryAuthor;
  /** ISO 8601 (UTC) time the message was posted. */
  readonly time: string;
  readonly text: string;
  /** Replies in the thread started on this message, for channel listings. */
  readonly replyCount?: number;
}

/** A page of history, oldest first; `truncated` when the platform holds more than was read. */
export interface HistoryPage {
  readonly messages: readonly HistoryMessage[];
  readonly truncated: boolean;
}

export interface ReadThreadOptions {
  readonly limit: number;
}

export interface ReadChannelOptions {
  readonly limit: number;
  /** Only messages posted at or after this time (epoch ms). */
  readonly since?: number;
}

export interface ReadAfterOptions {
  /** The platform id of the last message Errand saw in the conversation; only later ones are read. */
  readonly afterId: string;
  readonly limit: number;
}

/**
 * A message a restart may have missed, in the form the adapter would have delivered it. Besides
 * `addressedToBot`, it carries what the live path's InboundMessage carries and the access rules and
 * the run read (`direct`, `roles`, `attachments`, with the same meaning there), so a caught-up message
 * is judged and answered as it would have been live: a DM as a DM, a person allowed by a role as allowed,
 * its files read.
 */
export interface MissedMessage extends HistoryMessage {
  /** Whether the adapter would have handed it to the core as an inbound message (a bot thread reply, a DM, a mention). */
  readonly addressedToBot: boolean;
  /** A direct message (DM), as `InboundMessage.direct`. */
  readonly direct?: boolean;
  /** The author's Discord role ids as of the catch-up, as `InboundMessage.roles`; absent where the platform has none. */
  readonly roles?: readonly string[];
  /** Files on the message, built as the live path builds them (`InboundMessage.attachments`). */
  readonly attachments?: readonly InboundAttachment[];
}

/** Missed messages, oldest first; `truncated` when more followed than were read. */
export interface MissedPage {
  readonly messages: readonly MissedMessage[];
  readonly truncated: boolean;
}

/**
 * Reading what people wrote on the platform, also what the bot was never asked about. Scoped
 * to one conversation by construction: callers pass the conversation, never a channel id, so a
 * tool can never read a channel other than the one it was called from.
 */
export interface ConversationHistory {
  /**
   * The conversation's own messages, oldest first: a thread from its start (root first), or, for
   * a conversation without a thread (a DM, a channel), the channel's latest `limit` messages.
   */
  readThread(conversation: ConversationRef, options: ReadThreadOptions): Promise<HistoryPage>;
  /** The latest `limit` top-level messages of the conversation's channel (or DM), oldest first, with reply counts. */
  readChannel(conversation: ConversationRef, options: ReadChannelOptions): Promise<HistoryPage>;
  /**
   * Messages of the conversation posted after `afterId`, oldest first — what arrived while Errand
   * was down. Texts are as inbound messages carry them (the bot's mention removed, nothing else changed).
   * Absent where nothing outlives a restart (the console).
   */
  readAfter?(conversation: ConversationRef, options: ReadAfterOptions): Promise<MissedPage>;
}
