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
import { fitPieces } from '../../src/chat/fit-pieces.js';
import { AdapterError } from '../../src/errors.js';

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
 * The nonce of each body of one post: its idempotency key for the first, `<key>.<n>` for any after it (a post is
 * one message since the outbox posts rendered pieces; file posts use the first). Keys that cannot fit get no nonce.
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

/** One message's content as Discord shows it: fences made unbreakable, crowd pings neutralised, the mention in front. */
function formatted(text: string, mentionUserId: string | undefined): string {
  const said = neutraliseCrowdMentions(withUnbreakableFences(text));
  return mentionUserId ? `<@${mentionUserId}> ${said}` : said;
}

/**
 * The pieces (Markdown) a text is posted as, one message each: split where each, once formatted as Discord shows it
 * (code blocks' fences made plain ``` with the backtick runs inside broken up, since Discord ends a block at the first
 * ``` whatever its fence: see src/chat/code-fence.ts; the mention on the first), is within 2 000 characters.
 */
export function renderPieces(text: string, mentionUserId?: string): string[] {
  return fitPieces(
    text,
    MAX_MESSAGE_LENGTH,
    (piece, first) => formatted(piece, first ? mentionUserId : undefined).length,
  );
}

/**
 * The body of one message as `postMessage` sends it: never split, since the outbox posts the pieces `renderPieces`
 * made; a content over 2 000 characters is refused with an error that says so. Null when there is nothing to send.
 */
export function toMessageBody(message: OutboundMessage): MessageBody | null {
  const content = formatted(message.text, message.mentionUserId);
  const components = toActionRows(message.buttons);
  if (message.text.trim() === '' && components.length === 0) return null;
  if (content.length > MAX_MESSAGE_LENGTH)
    throw new AdapterError(
      `A Discord message of ${content.length} characters is over the limit of ${MAX_MESSAGE_LENGTH}: post the pieces render() makes of it.`,
    );
  return {
    content: message.text.trim() === '' ? '' : content,
    allowed_mentions: allowedMentions(message),
    ...(components.length > 0 ? { components } : {}),
  };
}

/**
 * The bodies of a text shown whole where no piece is recorded (a direct message, a working note): the pieces of
 * `renderPieces`, the mention on the first and the buttons on the last. Empty when there is nothing to send.
 */
export function toMessageBodies(message: OutboundMessage): MessageBody[] {
  const components = toActionRows(message.buttons);
  const pieces = renderPieces(message.text, message.mentionUserId);
  if (pieces.length === 0)
    return components.length > 0 ? [{ content: '', allowed_mentions: allowedMentions(message), components }] : [];
  return pieces.map((piece, i) => ({
    content: formatted(piece, i === 0 ? message.mentionUserId : undefined),
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
