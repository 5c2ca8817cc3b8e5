import type { PostIntent } from '../agent/agent-types.js';
import type { OutboxPayload } from '../db/schema.js';

/**
 * Splits a post into the platform messages it becomes, so each outbox row is exactly one message: the text as the
 * platform's adapter renders it (`Delivery.render`: its own formatting, each piece within its limit), the mention on
 * the first piece, the buttons on the last. Empty when there is nothing to post.
 */
export function toPieces(
  intent: PostIntent,
  render: (text: string, mentionUserId?: string) => readonly string[],
): OutboxPayload[] {
  const buttons = intent.buttons && intent.buttons.length > 0 ? intent.buttons.map((b) => ({ ...b })) : undefined;
  const rendered = intent.text.trim() === '' ? [] : render(intent.text, intent.mentionUserId);
  const texts = rendered.length === 0 && buttons ? [''] : rendered;
  return texts.map((text, i) => ({
    text,
    ...(i === 0 && intent.mentionUserId ? { mentionUserId: intent.mentionUserId } : {}),
    ...(i === texts.length - 1 && buttons ? { buttons } : {}),
  }));
}
