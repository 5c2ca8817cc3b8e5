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
