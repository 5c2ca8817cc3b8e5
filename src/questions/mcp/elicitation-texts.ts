import type { ElicitationScope } from '../../mcp/elicitation-scope.js';
import type { RequestedElicitation } from './requested-form.js';

/** A server's message quoted, line by line, so it reads as the server's words and not Errand's. */
const quoted = (message: string): string =>
  message
    .trim()
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');

const hostOf = (url: string): string => new URL(url).host;

/**
 * The question's post: which server asks (the specification has clients say so), for which tool, its message,
 * and what the buttons do. A link is named by its host and never shown in the thread: it goes to the person
 * alone, as a private notice, or where there are none as the private reply to their **Show link**.
 */
export function elicitationPostText(
  scope: ElicitationScope,
  request: Extract<RequestedElicitation, { mode: 'form' | 'url' }>,
  linkPrivately: boolean,
): string {
  const who = `**${scope.server}** (running \`${scope.exposedName}\`)`;
  if (request.mode === 'form') {
    const n = request.fields.length;
    const fields = n === 0 ? 'to confirm' : `to fill in ${n} field${n === 1 ? '' : 's'}`;
    return `❓ ${who} asks you:\n${quoted(request.message)}\nPress **Answer** ${fields}, or **Decline**.`;
  }
  const link = linkPrivately ? 'I sent you the link privately.' : 'Press **Show link** to see it (only you can).';
  return `🔗 ${who} asks you to open a page on **${hostOf(request.url)}**:\n${quoted(request.message)}\n${link} Press **Done** when you have finished there, or **Decline**.`;
}

/** The thread's note about a question Errand declined because it cannot show it. */
export const unsupportedNote = (server: string, principal: string, reason: string): string =>
  `⚠️ **${server}** asked <@${principal}> something I cannot show as a form (${reason}), so I declined it.`;

/** What people read about questions: outcomes on the post, private replies to clicks. */
export const elicitationTexts = {
  answeredBy: (userId: string) => `✅ Answered by <@${userId}>.`,
  declinedBy: (userId: string) => `🚫 Declined by <@${userId}>.`,
  doneBy: (userId: string) => `✅ <@${userId}> finished on the page.`,
  timedOut: '⌛ Nobody answered in time: cancelled.',
  finished: '✅ Finished on the page.',
  dismissed: '⏹️ Cancelled: nobody can answer here any more (the input has ended).',
  stopped: '⏹️ Closed: the work was stopped, or Errand restarted (if the work goes on, you may be asked again).',
  sent: (server: string) => `Sent your answer to ${server}.`,
  declined: (server: string) => `Told ${server} you declined.`,
  toldDone: (server: string) => `Told ${server} you are done.`,
  closed:
    'This question is closed: it was answered, or the tool call that asked it ended (it was stopped, timed out, or Errand restarted).',
  notYours: (server: string, principal: string) =>
    `This question from ${server} is for <@${principal}>, who asked for this work.`,
  noForm: 'This question has no form: open its link, then press Done.',
  noLink: 'This question is a form: press Answer to fill it in.',
  privateLink: (server: string, url: string) => `🔗 The page ${server} asks you to open (only you see this): ${url}`,
} as const;
