import type { OutboundMessage } from '../../src/chat/chat-adapter.js';
import type { OutboundButton } from '../../src/chat/outbound-button.js';
import { splitText } from '../../src/chat/split-text.js';
import { markdownToMrkdwn } from './mrkdwn.js';

/** A section block's text may hold at most 3 000 characters; texts are split below it. */
export const MAX_MESSAGE_LENGTH = 3000;
/** Slack cuts a button's label after 75 characters. */
const MAX_BUTTON_LABEL = 75;
const MAX_BUTTON_VALUE = 2000;

/** Block Kit blocks as sent to Slack (only the kinds Errand posts). */
export type SlackBlock =
  | { type: 'section'; text: { type: 'mrkdwn'; text: string } }
  | { type: 'context'; elements: { type: 'mrkdwn'; text: string }[] }
  | { type: 'actions'; elements: SlackButton[] };

export interface SlackButton {
  type: 'button';
  action_id: string;
  text: { type: 'plain_text'; text: string; emoji: true };
  value: string;
  style?: 'primary' | 'danger';
}

/** One `chat.postMessage`/`chat.update` body: mrkdwn text (also the notification fallback) and blocks. */
export interface SlackMessageBody {
  text: string;
  blocks?: SlackBlock[];
}

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

/**
 * The bodies to post for one outbound message, in order: Markdown converted to mrkdwn, the
 * mention in front, split below the section limit (code fences kept whole), and the buttons
 * on the last piece. Empty when there is nothing to say.
 */
export function toMessageBodies(message: OutboundMessage, limit = MAX_MESSAGE_LENGTH): SlackMessageBody[] {
  const body = markdownToMrkdwn(message.text).trim();
  const text = message.mentionUserId ? `<@${message.mentionUserId}> ${body}`.trim() : body;
  if (text === '') return message.buttons?.length ? [withButtons('…', message.buttons)] : [];
  const pieces = splitText(text, limit);
  return pieces.map((piece, i) => (i === pieces.length - 1 ? withButtons(piece, message.buttons) : { text: piece }));
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
