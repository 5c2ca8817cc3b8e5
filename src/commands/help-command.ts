import type { CommandReply } from '../chat/inbound.js';

/** `/help`: what Errand does and how to drive it. */
export function handleHelpCommand(schedulesHelp?: string): CommandReply {
  return {
    text: [
      '**Errand** — mention me with a request and I answer in a thread, working through it step by step.',
      '• Talk to me in the thread without mentioning me; I may ask you questions there.',
      '• A new request while I am busy is queued as a to-do and runs after the current one.',
      '• Say `stop` (or `cancel`) in the thread to stop what I am doing; `stop all` also clears the queue.',
      '',
      '**Commands**',
      '• `/tasks` — the current run and the to-do list',
      '• `/stop` — stop the current run · `/stop all` — and cancel pending tasks · `/stop <task-id>` — one task',
      ...(schedulesHelp ? [schedulesHelp] : []),
      '• `/usage` — your model tokens today and over the last 30 days, and the limits (admins: everyone\'s)',
      '• `/help` — this message',
    ].join('\n'),
  };
}
