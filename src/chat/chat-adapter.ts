import type { ConversationHistory } from './conversation-history.js';
import type { ChannelRef, ConversationRef } from './conversation-ref.js';
import type { InboundSink } from './inbound.js';
import type { OutboundButton } from './outbound-button.js';

/** A message to post. `text` is Markdown; the adapter converts it to the platform's dialect. */
export interface OutboundMessage {
  readonly text: string;
  /** Mention this user at the start (questions mention the asker). */
  readonly mentionUserId?: string;
  readonly buttons?: readonly OutboundButton[];
  /**
   * A stable key for this post (the outbox gives `e<row id>`). Sending the same key again must not
   * show the message twice: Discord sends it as the `nonce` with `enforce_nonce`; Slack attaches it as
   * message metadata that `findPosted` can find. When the adapter splits the text itself, its later
   * pieces get `<key>.<n>`.
   */
  readonly idempotencyKey?: string;
}

export interface PostedMessage {
  /** Platform id of the (last) posted message; long texts are split into several. */
  readonly id: string;
}

/**
 * What a run is doing right now, so a platform with a status line (Slack's assistant threads) can say
 * more than "working": calling the model, reading the platform's history, running a tool, or parked on a question.
 */
export type WorkingActivity = 'thinking' | 'reading' | 'tool' | 'waiting';

/** What the runtime shows while a run works (typing, reaction, status line with a Stop button). */
export interface WorkingStatus {
  readonly runId: string;
  /** The message that started the work, when there is one (reactions go on it). */
  readonly sourceMessageId?: string;
  /** Action id for a Stop button. */
  readonly stopActionId: string;
  /** The current step; absent when the run has just started. Adapters without a status line ignore it. */
  readonly activity?: WorkingActivity;
  /** The tool being run (with `reading` and `tool`), as the model sees it, e.g. `github__search_issues`. */
  readonly toolName?: string;
}

export interface AdapterCapabilities {
  /** Buttons (Block Kit, message components) can be posted. */
  readonly buttons: boolean;
  /** Replies visible only to one user. */
  readonly ephemeral: boolean;
  /** Hard limit of one message's text; longer texts are split by the adapter. */
  readonly maxMessageLength: number;
}

/**
 * A live preview of an answer the model is still writing (STREAMING). The preview is not the answer's
 * record: the outbox still records the answer with its step, and when it delivers that record it asks
 * the stream to `finish` instead of posting anew, so the text appears once. Every platform call an
 * implementation makes goes through the adapter's per-channel queue, and appends that arrive while one
 * is in flight are coalesced into the next update.
 */
export interface AnswerStream {
  /** Adds text as the model writes it; returns at once (updates are paced and coalesced). */
  append(text: string): void;
  /**
   * Makes the preview show exactly the final answer `text`, which the outbox posts as `pieces`, and
   * resolves with the platform id showing each piece, in order (one message may show several: then
   * their ids repeat). May be called again after it failed; a no-op after `stop`, resolving `[]`.
   */
  finish(text: string, pieces: readonly string[]): Promise<readonly string[]>;
  /**
   * Ends the preview; nothing is edited afterwards. No-op once finishing. `stopped` (the default: a
   * person stopped the run, or the model failed) leaves the text shown so far with a "(stopped)" mark;
   * `discard` (the process is shutting down and the answer will be made again after the restart)
   * deletes what the preview showed, so the answer is not in the thread twice.
   */
  stop(how?: 'stopped' | 'discard'): Promise<void>;
}

/** What the runtime hears from a live preview. */
export interface AnswerStreamHooks {
  /**
   * A new platform message of the preview is about to be posted (the first one, or one past the split
   * point). Awaited before the request leaves: the runtime records the intent durably and answers with
   * the idempotency key the post carries, so a message whose post the process never heard back about
   * (killed within that round trip) can still be found and taken back.
   */
  beforeMessage(): Promise<PreviewMessageSlot>;
}

/** The durable record of one preview message, made before its post leaves. */
export interface PreviewMessageSlot {
  /** The post's idempotency key (see `OutboundMessage.idempotencyKey`); null when nothing could be recorded. */
  readonly key: string | null;
  /** The platform answered with the message's id: awaited before the preview goes on. Never rejects. */
  posted(messageId: string): Promise<void>;
}

/**
 * A preview message whose post may have reached the platform without its answer reaching Errand: what
 * `ChatAdapter.findUnrecordedPreview` is given to find it by.
 */
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

/** Whether an adapter can currently receive and send; `detail` says what it is doing when not. */
export interface ConnectionState {
  readonly connected: boolean;
  readonly detail?: string;
  /** Where processes share one gateway connection (Discord on PostgreSQL): whether this one holds it. A standby is connected. */
  readonly gateway?: 'held' | 'standby';
}

/**
 * The platform port. Every method may throw AdapterError; outbound calls are rate limited
 * and queued per channel by the adapter, and resolve once the platform accepted them, in order.
 */
export interface ChatAdapter {
  /** Platform name, the first part of every ConversationRef it produces. */
  readonly platform: string;
  readonly capabilities: AdapterCapabilities;
  /** Connects and starts delivering inbound events to the sink. */
  start(sink: InboundSink): Promise<void>;
  /** Disconnects; pending outbound messages are flushed first where possible. */
  stop(): Promise<void>;
  /** Posts into the conversation (its thread when it has one); splits long text. */
  postMessage(conversation: ConversationRef, message: OutboundMessage): Promise<PostedMessage>;
  /** Replaces a posted message's text (and buttons: omitted = removed). */
  editMessage(conversation: ConversationRef, messageId: string, message: OutboundMessage): Promise<void>;
  /**
   * Deletes one of the bot's own messages: true once it is gone (also when it already was), false when
   * the platform refuses to delete it here (the caller edits it instead). Throws on transient failures
   * and TargetGoneError when the conversation is gone. Absent where messages cannot be deleted (console).
   */
  deleteMessage?(conversation: ConversationRef, messageId: string): Promise<boolean>;
  /** Shows (status) or clears (null) the working indicator; never delays a reply. */
  setWorking(conversation: ConversationRef, status: WorkingStatus | null): Promise<void>;
  /**
   * Opens a thread rooted at a channel message and returns its conversation. Where no thread can
   * be opened there (a DM, threads turned off) it opens none and returns the channel's conversation.
   */
  openThread(channel: ChannelRef, messageId: string, name: string): Promise<ConversationRef>;
  /** A notice only `userId` sees (falls back to a normal post where unsupported). */
  postEphemeral(conversation: ConversationRef, userId: string, text: string): Promise<void>;
  /** Where the platform knows people's timezones (Slack; the console's own): the user's IANA timezone, else null. */
  fetchUserTimezone?(userId: string): Promise<string | null>;
  /**
   * Which of these idempotency keys the bot already posted in the conversation (key → platform id).
   * The outbox asks before posting again a message whose earlier attempt may have reached the
   * platform (a crash, or a failure with no answer). Absent where a repeated key is harmless by
   * itself (Discord's nonce) or the platform keeps no history (console).
   */
  findPosted?(conversation: ConversationRef, keys: readonly string[]): Promise<ReadonlyMap<string, string>>;
  /**
   * Opens a live preview of an answer (nothing is shown before the first `append`); `recipientUserId`
   * is the person the answer is for (Slack streams to a recipient); `hooks` hear of each message before it is posted.
   * Absent: answers are posted whole.
   */
  openStream?(conversation: ConversationRef, recipientUserId: string | null, hooks?: AnswerStreamHooks): AnswerStream;
  /**
   * The id of the preview message posted with `probe.key` whose answer never reached Errand, or null
   * when the platform holds none (the caller then has nothing to take back). Discord sends the post
   * again with the same nonce, which returns the stored message within Discord's nonce window (or
   * creates one, which the caller deletes); Slack (and Discord past that window) looks in the thread
   * for the bot's message between `probe.since` and `probe.until` that no recorded id owns. Absent
   * where previews keep no history (console).
   */
  findUnrecordedPreview?(conversation: ConversationRef, probe: UnrecordedPreview): Promise<string | null>;
  /** Reads the platform's message history of a conversation; absent where the platform keeps none. */
  readonly history?: ConversationHistory;
  /** The live connection state for `/healthz`; absent: the adapter is taken as connected once started. */
  connectionState?(): ConnectionState;
}
