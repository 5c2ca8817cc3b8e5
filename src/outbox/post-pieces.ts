import type { PostIntent } from '../agent/agent-types.js';
import { splitText } from '../chat/split-text.js';
import type { OutboxPayload } from '../db/schema.js';

/**
 * Room left in each piece for what the adapter adds (its dialect's escapes, the mention in front):
 * a piece must stay one platform message, or a restart could not tell which part of it was posted.
 */
const HEADROOM = 0.1;
const MENTION_ROOM = 32;

/**
 * Splits a post into the platform messages it becomes, so each outbox row is exactly one message:
 * the mention goes on the first piece, the buttons on the last. Empty when there is nothing to post.
 */
export function toPieces(intent: PostIntent, maxMessageLength: number): OutboxPayload[] {
  const limit = Math.max(20, Math.floor(maxMessageLength * (1 - HEADROOM)) - (intent.mentionUserId ? MENTION_ROOM : 0));
  const buttons = intent.buttons && intent.buttons.length > 0 ? intent.buttons.map((b) => ({ ...b })) : undefined;
  const texts = intent.text.trim() === '' ? (buttons ? [''] : []) : splitText(intent.text, limit);
  return texts.map((text, i) => ({
    text,
    ...(i === 0 && intent.mentionUserId ? { mentionUserId: intent.mentionUserId } : {}),
    ...(i === texts.length - 1 && buttons ? { buttons } : {}),
  }));
}
