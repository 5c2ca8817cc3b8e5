import { budgetStopNote } from '../budget/budget-notices.js';
import { stopNotice } from './stop-notice.js';

/**
 * Every note Errand posts about its own work, in one place, so the wording stays consistent and
 * plain: one counter per message, no operator hints (those go to the log).
 */
export const notices = {
  restarted: (taskId: number | null) =>
    `🔄 I was restarted while working${taskId !== null ? ` on task #${taskId}` : ''}; picking it back up.`,
  restartLimit: (taskId: number | null, times: number) =>
    `❌ I gave up on ${taskId !== null ? `task #${taskId}` : 'this'}: I was restarted in the middle of it ${times} times. Ask again if you still need it.`,
  timeLimit: (minutes: number) => `⏱️ I stopped: this run reached its time limit of ${minutes} minutes.`,
  stepLimit: (steps: number) =>
    `🛑 I stopped after ${steps} steps without finishing. Ask me to continue if you want me to keep going.`,
  retrying: (reason: string, delayMs: number) =>
    `⚠️ I couldn't finish: ${reason}. I'll try again in ${Math.max(1, Math.round(delayMs / 1000))} s.`,
  failed: (reason: string) => `❌ I couldn't finish this: ${reason}.`,
  targetGone: (reason: string) => `Stopped: the conversation can no longer be posted to (${reason}).`,
  overBudget: budgetStopNote,
  crashed: 'something went wrong on my side (it has been logged)',
  emptyAnswer: 'the model sent an empty answer twice',
  queued: (taskId: number, why: string) => `📝 Queued as task #${taskId}. ${why}`,
  queuedBehindApproval: (taskId: number) =>
    `📝 Queued as task #${taskId}. I'm waiting for a decision on a tool call first: reply **allow**, **always** or **deny**.`,
  nothingRunning: 'Nothing is running here.',
  stopped: stopNotice,
  notAllowedToDecide: (approver: string) =>
    `Only <@${approver}> (who asked for this) or an admin can allow or deny this tool call.`,
  notAllowedToAnswer: (asker: string) =>
    `This question is for <@${asker}>. Write your own request in the thread and I'll queue it.`,
  notAllowedToStop: 'Only the person who asked for this work, or an admin, can stop it.',
  /** A click on a question or approval that is no longer the one its run waits on. */
  alreadyAnswered: 'That question has already been answered.',
  /** A click on a button posted before buttons named their question: it cannot be matched to one. */
  oldButton:
    'This button is from an earlier version of Errand and cannot tell which question it answers. Type your answer in the thread instead.',
} as const;
