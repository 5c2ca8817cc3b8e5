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
   * message metadata that `findPosted` can find. One key, one message: the adapter never splits a post.
   */
  readonly idempotencyKey?: string;
}

export interface PostedMessage {
  /** Platform id of the (last) posted message; long texts are split into several. */
  readonly id: string;
}
