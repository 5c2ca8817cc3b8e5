import type { SlackBlock, SlackMessageBody } from './slack-blocks.js';

/** Sits between `@` and the word so Slack shows "@channel" but never notifies anyone. */
const WORD_JOINER = '\u2060';

/** `<!channel>`, `<!here|here>`, `<!everyone>`: Slack's crowd pings, with an optional label. */
const BROADCAST_TOKEN = /<!(channel|here|everyone)(?:\|[^<>]*)?>/gi;
/** `<!subteam^S123>` or `<!subteam^S123|@team>`: pings every member of a user group. */
const SUBTEAM_TOKEN = /<!subteam\^[^<>|]*(?:\|([^<>]*))?>/gi;
/** The same crowd words typed as plain text, which Slack links when a message is sent with link_names. */
const BROADCAST_WORD = /(^|[^\w@])@(channel|here|everyone)\b/gi;

/**
 * Makes every crowd ping in outgoing mrkdwn inert while keeping it readable: neither the model
 * nor a person quoted by it may notify a whole channel or user group through the bot. Person
 * mentions (`<@U…>`) stay, because answering someone means mentioning them. Idempotent.
 */
export function neutraliseSpecialMentions(text: string): string {
  return text
    .replace(BROADCAST_TOKEN, (_m, word: string) => `@${WORD_JOINER}${word.toLowerCase()}`)
    .replace(SUBTEAM_TOKEN, (_m, label: string | undefined) => {
      const name = (label ?? '').replace(/^@/, '').trim() || 'group';
      return `@${WORD_JOINER}${name}`;
    })
    .replace(BROADCAST_WORD, (_m, before: string, word: string) => `${before}@${WORD_JOINER}${word}`);
}

function neutraliseBlock(block: SlackBlock): SlackBlock {
  if (block.type === 'section')
    return { ...block, text: { ...block.text, text: neutraliseSpecialMentions(block.text.text) } };
  if (block.type === 'context')
    return { ...block, elements: block.elements.map((e) => ({ ...e, text: neutraliseSpecialMentions(e.text) })) };
  return block;
}

/** A message body with its text and every mrkdwn block neutralised; what the adapter sends to Slack. */
export function neutraliseBody<B extends SlackMessageBody>(body: B): B {
  return {
    ...body,
    text: neutraliseSpecialMentions(body.text),
    ...(body.blocks ? { blocks: body.blocks.map(neutraliseBlock) } : {}),
  };
}
