import {
  ButtonStyle,
  ComponentType,
  type APIActionRowComponent,
  type APIButtonComponent,
  type APIComponentInMessageActionRow,
} from 'discord.js';
import type { OutboundMessage } from '../../src/chat/chat-adapter.js';
import type { OutboundButton } from '../../src/chat/outbound-button.js';
import { withUnbreakableFences } from '../../src/chat/code-fence.js';
import { splitText } from '../../src/chat/split-text.js';

/** Discord's hard limit on one message's content. */
export const MAX_MESSAGE_LENGTH = 2000;
const BUTTONS_PER_ROW = 5;
const MAX_ROWS = 5;

/** The JSON body of `POST /channels/{id}/messages` (and of edits). */
export interface MessageBody {
  content: string;
  components?: APIActionRowComponent<APIComponentInMessageActionRow>[];
  allowed_mentions: { parse: never[]; users: string[] };
  /** Idempotency: with `enforce_nonce`, Discord returns the message already sent with this nonce instead of a second one. */
  nonce?: string;
  enforce_nonce?: boolean;
}

/** Discord nonces are at most 25 characters. */
const MAX_NONCE = 25;

/**
 * The nonce of each body of one outbound message: its idempotency key for the first piece, `<key>.<n>`
 * for the pieces the adapter had to split off. Keys that cannot fit get no nonce.
 */
export function withNonces(bodies: MessageBody[], key: string | undefined): MessageBody[] {
  if (!key) return bodies;
  return bodies.map((body, i) => {
    const nonce = i === 0 ? key : `${key}.${i}`;
    return nonce.length <= MAX_NONCE ? { ...body, nonce, enforce_nonce: true } : body;
  });
}

function toButton(b: OutboundButton): APIButtonComponent {
  const style =
    b.style === 'primary' ? ButtonStyle.Primary : b.style === 'danger' ? ButtonStyle.Danger : ButtonStyle.Secondary;
  return { type: ComponentType.Button, style, custom_id: b.actionId.slice(0, 100), label: b.label.slice(0, 80) || '…' };
}

/** Buttons as action rows of at most five (Discord allows five rows). */
export function toActionRows(
  buttons: readonly OutboundButton[] = [],
): APIActionRowComponent<APIComponentInMessageActionRow>[] {
  const rows: APIActionRowComponent<APIComponentInMessageActionRow>[] = [];
  for (let i = 0; i < buttons.length && rows.length < MAX_ROWS; i += BUTTONS_PER_ROW) {
    rows.push({ type: ComponentType.ActionRow, components: buttons.slice(i, i + BUTTONS_PER_ROW).map(toButton) });
  }
  return rows;
}

/**
 * Only the asker is ever pinged: model output that happens to contain `@everyone` or a user
 * mention must not notify a whole server.
 */
function allowedMentions(message: OutboundMessage): MessageBody['allowed_mentions'] {
  return { parse: [], users: message.mentionUserId ? [message.mentionUserId] : [] };
}

/** `@everyone`/`@here` with a zero-width space after the `@`: shown the same, never a ping (Discord's own advice). */
export function neutraliseCrowdMentions(text: string): string {
  return text.replace(/@(everyone|here)\b/g, '@\u200b$1');
}

/**
 * The bodies to post for one outbound message, in order: Markdown passes through unchanged except
 * code blocks, whose fences become plain ``` with the backtick runs inside broken up (Discord ends a
 * block at the first ``` whatever its fence: see src/chat/code-fence.ts), a mention prefixes the text, long text is split at 2 000 characters without breaking code fences,
 * and buttons go on the last piece. Empty when there is nothing to send.
 */
export function toMessageBodies(message: OutboundMessage): MessageBody[] {
  const said = neutraliseCrowdMentions(withUnbreakableFences(message.text));
  const text = message.mentionUserId ? `<@${message.mentionUserId}> ${said}` : said;
  const components = toActionRows(message.buttons);
  const pieces = text.trim() === '' ? (components.length > 0 ? [''] : []) : splitText(text, MAX_MESSAGE_LENGTH);
  return pieces.map((content, i) => ({
    content,
    allowed_mentions: allowedMentions(message),
    ...(i === pieces.length - 1 && components.length > 0 ? { components } : {}),
  }));
}

/** The body of an edit: one message, so only the first piece fits; buttons omitted = removed. */
export function toEditBody(message: OutboundMessage): MessageBody {
  const [first] = toMessageBodies(message);
  return {
    content: first?.content ?? '',
    allowed_mentions: allowedMentions(message),
    components: toActionRows(message.buttons),
  };
}
