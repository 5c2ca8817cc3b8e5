import type { ChannelRef, ConversationRef } from './conversation-ref.js';
import type { FileLimits, OutboundFile } from './file-posts.js';
import type { OutboundMessage, PostedMessage } from './outbound-message.js';
import type { PrivateShowResult } from './private-answers.js';

/**
 * Content out: the part of an adapter that writes on its platform, held only by the outbox (src/outbox/) and
 * the composition root that hands it there. Every method may throw AdapterError; outbound calls are rate
 * limited and queued per channel by the adapter, and resolve once the platform accepted them, in order.
 * What only some platforms do is in `capabilities`.
 */
export interface Delivery {
  /** Platform name, the first part of every ConversationRef it produces. */
  readonly platform: string;
  /** Hard limit of one message's text, in the platform's own dialect. */
  readonly maxMessageLength: number;
  /**
   * The pieces (Markdown) `text` is posted as, one message each, split by the adapter's own formatting so each is
   * within `maxMessageLength` once formatted (with the mention, when given, on the first); code fences kept whole.
   * The outbox calls it once when it records a post and stores these pieces; empty when there is nothing to say.
   */
  render(text: string, mentionUserId?: string): readonly string[];
  /** Optional features, each present only where the platform has it. */
  readonly capabilities: DeliveryCapabilities;
  /**
   * Posts one message into the conversation (its thread when it has one). Never splits: a text over the limit once
   * formatted is refused with an AdapterError (post the pieces of `render`).
   */
  postMessage(conversation: ConversationRef, message: OutboundMessage): Promise<PostedMessage>;
  /** Replaces a posted message's text (and buttons: omitted = removed). */
  editMessage(conversation: ConversationRef, messageId: string, message: OutboundMessage): Promise<void>;
  /**
   * Opens a thread rooted at a channel message and returns its conversation. Where no thread can
   * be opened there (a DM, threads turned off) it opens none and returns the channel's conversation.
   */
  openThread(channel: ChannelRef, messageId: string, name: string): Promise<ConversationRef>;
  /**
   * Whether `postEphemeral` is seen by that person alone. False where it falls back to a post others in
   * the conversation can read (Discord outside an interaction): secrets such as a sign-in link are never
   * sent that way.
   */
  readonly privateNotices: boolean;
  /** A notice only `userId` sees (falls back to a normal post where unsupported). */
  postEphemeral(conversation: ConversationRef, userId: string, text: string): Promise<void>;
}

/** What only some platforms can deliver, each a small interface the adapter hands over or leaves out. */
export interface DeliveryCapabilities {
  /** Deleting the bot's own messages. Absent (console): the caller edits instead. */
  readonly delete?: DeleteCapability;
  /** Finding the bot's posts by idempotency key after a crash (Slack). */
  readonly postedLookup?: PostedLookup;
  /** Finding a preview message whose post never got its answer to Errand (Slack, Discord). */
  readonly previewLookup?: PreviewLookup;
  /** Messages to one person in a direct conversation, where `postEphemeral` is not private (Discord). */
  readonly directMessage?: DirectMessageCapability;
  /** Posting files into a conversation (Slack's upload API, Discord attachments, the console's data folder). */
  readonly files?: FilePostCapability;
  /** Showing an answer built on one person's private material to its owner alone, with buttons. */
  readonly privateAnswers?: PrivateAnswerDelivery;
  /** Files built on one person's private material, shown to them alone before they share them (absent: only their names are). */
  readonly privateFiles?: PrivateFilesCapability;
}

/** How a direct message went: delivered, or refused by the platform for this person (DMs closed, no shared server). */
export type DirectMessageResult = { readonly kind: 'sent'; readonly messageId: string } | { readonly kind: 'refused' };

export interface DirectMessageCapability {
  /**
   * Opens (or finds) the direct conversation with `userId` and posts `text` there. `refused`: the platform will not
   * deliver it to this person (Discord 50007); throws on transient failures, like a post.
   */
  sendDirect(userId: string, text: string): Promise<DirectMessageResult>;
}

export interface DeleteCapability {
  /**
   * Deletes one of the bot's own messages: true once it is gone (also when it already was), false when
   * the platform refuses to delete it here (the caller edits it instead). Throws on transient failures
   * and TargetGoneError when the conversation is gone.
   */
  deleteMessage(conversation: ConversationRef, messageId: string): Promise<boolean>;
}

export interface PostedLookup {
  /**
   * Which of these idempotency keys the bot already posted in the conversation (key → platform id).
   * The outbox asks before posting again a message whose earlier attempt may have reached the platform
   * (a crash, or a failure with no answer). Not offered where a repeated key is harmless by itself
   * (Discord's nonce).
   */
  findPosted(conversation: ConversationRef, keys: readonly string[]): Promise<ReadonlyMap<string, string>>;
}

export interface PreviewLookup {
  /**
   * The id of the preview message posted with `probe.key` whose answer never reached Errand, or null
   * when the platform holds none (the caller then has nothing to take back). Discord sends the post
   * again with the same nonce, which returns the stored message within Discord's nonce window (or
   * creates one, which the caller deletes); Slack (and Discord past that window) looks in the thread
   * for the bot's message between `probe.since` and `probe.until` that no recorded id owns.
   */
  findUnrecordedPreview(conversation: ConversationRef, probe: UnrecordedPreview): Promise<string | null>;
}

/** A preview message whose post may have reached the platform without its answer reaching Errand. */
export interface UnrecordedPreview {
  /** The idempotency key the post carried (Discord: its nonce; Slack: metadata, where the call takes it). */
  readonly key: string;
  /** When the post was about to leave (ms since epoch, Errand's clock, less a margin for skew): the message is not older. */
  readonly since: number;
  /**
   * When Errand wrote what came after the process died (the recovery's note; ms since epoch), or null
   * when unknown: the message is older, so a message of the run answering again is never taken for it.
   */
  readonly until: number | null;
  /** Platform ids of the conversation's messages Errand has recorded: never the one sought. */
  readonly known: ReadonlySet<string>;
  /** The text to post with `key` where sending the post again is how the platform finds it (Discord). */
  readonly text: string;
}

/** One message of files. */
export interface FilePost {
  readonly files: readonly OutboundFile[];
  /** The post's stable key (the outbox gives `e<row id>`): sending it again must not show the files twice. */
  readonly idempotencyKey?: string;
  /**
   * The platform ids an earlier try of this post staged (`FilePostHooks.staged`), one per file in order: the
   * adapter looks at them before uploading anything again (they may be shared already, or wait to be).
   */
  readonly staged?: readonly string[];
}

/** What the caller hears while a post is under way. */
export interface FilePostHooks {
  /**
   * The bytes are on the platform but not yet shared into the conversation (Slack's upload before
   * `files.completeUploadExternal`): the caller records `ids` durably before the adapter goes on, so a try
   * after a crash finds them (`FilePost.staged`) instead of posting the files twice. A rejection stops the post.
   */
  staged?(ids: readonly string[]): Promise<void>;
}

/**
 * Posting files into a conversation, where the platform can (Slack's files upload API, Discord message
 * attachments, the console's data folder). Images are shown inline by the platforms themselves.
 */
export interface FilePostCapability {
  readonly limits: FileLimits;
  /**
   * Posts the files as one message (its thread when it has one) and resolves with the platform's id for it
   * (Slack: the first file's id, since Slack makes the message itself a moment later). Throws like
   * `postMessage` (AdapterError, TargetGoneError); a file over `limits` is refused with an AdapterError.
   */
  postFiles(conversation: ConversationRef, post: FilePost, hooks?: FilePostHooks): Promise<PostedMessage>;
}

/**
 * Showing an answer built on one person's private material (DESIGN.md "Private stays private in a shared thread")
 * to its owner alone, with its **Share in thread** / **Keep private** buttons. A capability, since each platform
 * does it its own way.
 */
export interface PrivateAnswerDelivery {
  /**
   * Shows `message`, its buttons included, to `userId` alone: Slack an ephemeral message in the conversation, Discord
   * a direct message (a bot's channel messages are public, and a run has no interaction to answer ephemerally), the
   * console prints it. `refused`: the platform will not deliver it to this person privately; throws on transient
   * failures, like a post.
   */
  showPrivately(conversation: ConversationRef, userId: string, message: OutboundMessage): Promise<PrivateShowResult>;
}

/**
 * Files built on one person's private material (what `run_code` wrote in a run holding it), shown to that person alone
 * before they choose **Share in thread** / **Keep private**. A capability, since no platform shows a file
 * ephemerally: each shows them where only that person reads.
 */
export interface PrivateFilesCapability {
  /**
   * Shows `files` and `message` (with its buttons) to `userId` alone: Slack uploads the files into their direct
   * conversation with the bot and shows `message` ephemerally in the conversation; Discord sends both as direct
   * messages. `refused`: the platform will not reach this person privately (DMs closed); throws on transient
   * failures, like a post.
   */
  showFilesPrivately(
    conversation: ConversationRef,
    userId: string,
    files: readonly OutboundFile[],
    message: OutboundMessage,
  ): Promise<PrivateShowResult>;
}
