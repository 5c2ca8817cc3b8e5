import type { SessionCapability } from './agent-session.js';
import type { AnswerStream, AnswerStreamHooks } from './answer-stream.js';
import type { ConversationHistory } from './conversation-history.js';
import type { ConversationRef } from './conversation-ref.js';
import type { MemberRolesCapability } from './member-roles.js';
import type { FilePostCapability } from './file-posts.js';
import type { PrivateAnswerCapability } from './private-answers.js';
import type { PrivateFilesCapability } from './private-files.js';

/**
 * What only some platforms can do, each a small interface the adapter hands over or leaves out, so the
 * core asks "can you?" once (`adapter.capabilities.stream?.open(…)`) and the contract suite drives every
 * capability where an adapter declares it.
 */
export interface AdapterCapabilities {
  /** Live previews of an answer as the model writes it. Absent: answers are posted whole. */
  readonly stream?: StreamCapability;
  /** Deleting the bot's own messages. Absent (console): the caller edits instead. */
  readonly delete?: DeleteCapability;
  /** Finding the bot's posts by idempotency key after a crash (Slack). */
  readonly postedLookup?: PostedLookup;
  /** Finding a preview message whose post never got its answer to Errand (Slack, Discord). */
  readonly previewLookup?: PreviewLookup;
  /** Reading the platform's message history of a conversation. Absent where the platform keeps none. */
  readonly history?: ConversationHistory;
  /** People's IANA timezones, where the platform knows them (Slack; the console's own). */
  readonly timezone?: TimezoneLookup;
  /** Messages to one person in a direct conversation, where `postEphemeral` is not private (Discord). */
  readonly directMessage?: DirectMessageCapability;
  /** People's roles in a workspace as they are now (Discord). Absent: the platform has no roles. */
  readonly memberRoles?: MemberRolesCapability;
  /** Posting files into a conversation (Slack's upload API, Discord attachments, the console's data folder). */
  readonly files?: FilePostCapability;
  /** Sessions of the platform's threads, with the platform's own Stop (Slack's Agent Sessions). */
  readonly session?: SessionCapability;
  /** Answers built on one person's private material: who reads a conversation, and showing one to its owner alone with buttons. */
  readonly privateAnswers?: PrivateAnswerCapability;
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

export interface StreamCapability {
  /**
   * Opens a live preview of an answer (nothing is shown before the first `append`); `recipientUserId`
   * is the person the answer is for (Slack streams to a recipient); `hooks` hear of each message before it is posted.
   */
  open(conversation: ConversationRef, recipientUserId: string | null, hooks?: AnswerStreamHooks): AnswerStream;
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

export interface TimezoneLookup {
  /** The user's IANA timezone, or null when the platform does not say. */
  fetchUserTimezone(userId: string): Promise<string | null>;
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
