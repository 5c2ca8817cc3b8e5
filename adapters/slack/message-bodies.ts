import type { OutboundMessage } from '../../src/chat/chat-adapter.js';
import type { OutboundButton } from '../../src/chat/outbound-button.js';
import { fitPieces } from '../../src/chat/fit-pieces.js';
import { AdapterError } from '../../src/errors.js';
import { markdownToMrkdwn } from './mrkdwn.js';
import type { SlackButton, SlackMessageBody } from './slack-blocks.js';
import { neutraliseSpecialMentions } from './special-mentions.js';

/** A section block's text may hold at most 3 000 characters; texts are split below it. */
export const MAX_MESSAGE_LENGTH = 3000;
/** Slack cuts a button's label after 75 characters. */
const MAX_BUTTON_LABEL = 75;
const MAX_BUTTON_VALUE = 2000;

export type { SlackBlock, SlackButton, SlackMessageBody } from './slack-blocks.js';

/** A Block Kit button; the full label travels in `value` so a click can answer with it. */
export function toSlackButton(button: OutboundButton): SlackButton {
  const label = button.label.trim() || '…';
  return {
    type: 'button',
    action_id: button.actionId,
    text: {
      type: 'plain_text',
      text: label.length > MAX_BUTTON_LABEL ? `${label.slice(0, MAX_BUTTON_LABEL - 1)}…` : label,
      emoji: true,
    },
    value: label.slice(0, MAX_BUTTON_VALUE),
    ...(button.style ? { style: button.style } : {}),
  };
}

function withButtons(text: string, buttons: readonly OutboundButton[] | undefined): SlackMessageBody {
  if (!buttons || buttons.length === 0) return { text };
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text } },
      { type: 'actions', elements: buttons.slice(0, 25).map(toSlackButton) },
    ],
  };
}

/** One message's text as Slack shows it: Markdown converted to mrkdwn, the mention in front, crowd pings made inert. */
function formatted(message: Pick<OutboundMessage, 'text' | 'mentionUserId'>): string {
  const body = markdownToMrkdwn(message.text).trim();
  return neutraliseSpecialMentions(message.mentionUserId ? `<@${message.mentionUserId}> ${body}`.trim() : body);
}

/**
 * The pieces (Markdown) a text is posted as, one message each: split where each, once converted to mrkdwn with the
 * mention on the first, is within the section limit (code fences kept whole). What the outbox stores and posts.
 */
export function renderPieces(text: string, mentionUserId?: string, limit = MAX_MESSAGE_LENGTH): string[] {
  return fitPieces(
    text,
    limit,
    (piece, first) => formatted({ text: piece, ...(first && mentionUserId ? { mentionUserId } : {}) }).length,
  );
}

/**
 * The body of one message as `postMessage` sends it: never split, since the outbox posts the pieces `renderPieces`
 * made; a text over the limit is refused with an error that says so. Null when there is nothing to say.
 */
export function toMessageBody(message: OutboundMessage, limit = MAX_MESSAGE_LENGTH): SlackMessageBody | null {
  const text = formatted(message);
  if (text === '') return message.buttons?.length ? withButtons('…', message.buttons) : null;
  if (text.length > limit)
    throw new AdapterError(
      `A Slack message of ${text.length} characters (as mrkdwn) is over the limit of ${limit}: post the pieces render() makes of it.`,
    );
  return withButtons(text, message.buttons);
}

/**
 * The bodies of a text shown whole where no piece is recorded (a private notice, an answer shown privately): the
 * pieces of `renderPieces`, with the buttons on the last. Empty when there is nothing to say.
 */
export function toMessageBodies(message: OutboundMessage, limit = MAX_MESSAGE_LENGTH): SlackMessageBody[] {
  const pieces = renderPieces(message.text, message.mentionUserId, limit);
  if (pieces.length === 0) return message.buttons?.length ? [withButtons('…', message.buttons)] : [];
  return pieces.map((piece, i) => {
    const body = {
      text: formatted({
        text: piece,
        ...(i === 0 && message.mentionUserId ? { mentionUserId: message.mentionUserId } : {}),
      }),
    };
    return i === pieces.length - 1 ? withButtons(body.text, message.buttons) : body;
  });
}

/** The body of an edit: one message, so an over-long text is cut with an ellipsis. */
export function toEditBody(message: OutboundMessage, limit = MAX_MESSAGE_LENGTH): SlackMessageBody {
  const bodies = toMessageBodies(message, limit);
  if (bodies.length === 0) return { text: '…', blocks: [] };
  if (bodies.length === 1) return { blocks: [], ...bodies[0]! };
  const first = bodies[0]!.text;
  return {
    ...withButtons(`${first.slice(0, limit - 1)}…`, message.buttons),
    ...(message.buttons?.length ? {} : { blocks: [] }),
  };
}
