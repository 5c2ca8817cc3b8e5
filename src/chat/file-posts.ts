import type { ConversationRef } from './conversation-ref.js';
import type { PostedMessage } from './outbound-message.js';

/** A file to post into a conversation (a run's output file, a chart). */
export interface OutboundFile {
  /** The name people see (and the console saves it under); `/` only where a folder is part of the name. */
  readonly name: string;
  readonly bytes: Uint8Array;
  /** `image/png` and the other image types show inline where the platform can; anything else is an attachment. */
  readonly mimeType: string;
}

/**
 * What one post of files may carry on a platform. The core refuses a file past `maxFileBytes` with a note
 * (it is never sent), and puts the rest into as few messages as these limits allow.
 */
export interface FileLimits {
  /** The largest single file, in bytes. */
  readonly maxFileBytes: number;
  /** Most files in one message. */
  readonly maxFilesPerMessage: number;
  /** Most bytes of all the files of one message together. */
  readonly maxMessageBytes: number;
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
