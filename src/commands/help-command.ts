import type { CommandReply } from '../chat/inbound.js';

/** What `/help` is told about the place it answers in and what is wired. */
export interface HelpOptions {
  /** Help lines about schedules, when scheduling is wired. */
  readonly schedulesHelp?: string;
  /**
   * The platform the command came from. The console has no threads, mentions or channels: one
   * session is one conversation, so its help speaks of the session instead.
   */
  readonly platform?: string;
}

const COMMON_COMMANDS = [
  '• `/tasks` — the current run and the to-do list',
  '• `/stop` — stop the current run · `/stop all` — and cancel pending tasks · `/stop <task-id>` — one task',
];
const USAGE_LINE =
  "• `/usage` — your model tokens (and their cost, with prices set) today and over the last 30 days, and the limits (admins: everyone's)";
const CONNECTIONS_LINE =
  '• `/connections` — the MCP servers you signed in to · `/connections disconnect <server>` — forget one';
const MEMORY_LINE = '• `/memory` — what I remember about you and in this channel · `/memory forget <id>` — forget one';
const CONSOLE_MEMORY_LINE = '• `/memory` — what I remember about you · `/memory forget <id>` — forget one';
const HELP_LINE = '• `/help` — this message';
const SKILLS_LINE =
  '• `/skills` — the skills (procedures your team wrote down) I follow here · admins: `/skills enable|disable <name>`';
const CONSOLE_SKILLS_LINE =
  '• `/skills` — the skills (procedures your team wrote down) I can follow · `/skills enable|disable <name>` — turn one on or off';
const ADMIN_LINE = '• `/admin` — admins: a private sign-in link to the web console';

/** `/help`: what Errand does and how to drive it, in the words of the platform it is used on. */
export function handleHelpCommand(options: HelpOptions = {}): CommandReply {
  return {
    text:
      options.platform === 'console'
        ? consoleHelp(options.schedulesHelp !== undefined)
        : chatHelp(options.schedulesHelp),
  };
}

function chatHelp(schedulesHelp: string | undefined): string {
  return [
    '**Errand** — mention me with a request and I answer in a thread, working through it step by step.',
    '• Talk to me in the thread without mentioning me; I may ask you questions there.',
    '• A new request while I am busy is queued as a to-do and runs after the current one.',
    '• Say `stop` (or `cancel`) in the thread to stop what I am doing; `stop all` also clears the queue.',
    '',
    '**Commands**',
    ...COMMON_COMMANDS,
    ...(schedulesHelp ? [schedulesHelp] : []),
    USAGE_LINE,
    CONNECTIONS_LINE,
    MEMORY_LINE,
    SKILLS_LINE,
    ADMIN_LINE,
    HELP_LINE,
  ].join('\n');
}

function consoleHelp(schedules: boolean): string {
  return [
    '**Errand console** — type a request and press Enter; I work through it step by step and show how long it takes.',
    '• This session is one conversation: just keep typing to follow up.',
    '• When I ask a question, type the number of an option or your own answer.',
    '• When I ask before running a tool (🔐), type `allow` (once), `always` (this tool, this session) or `deny` — or the number.',
    '• A new request while I am working is queued as a to-do and runs after the current one.',
    '• Type `stop` (or `cancel`) to stop what I am doing; `stop all` also clears the queue.',
    '• Ctrl-D (or Ctrl-C) quits.',
    '',
    '**Commands**',
    ...COMMON_COMMANDS,
    ...(schedules
      ? [
          '• `/schedules` — the scheduled prompts · `/schedules pause|resume|delete <id>` — manage one',
          '• To schedule something, just ask me: "every weekday at 9:00 summarise my to-dos", "remind me in 2 hours". They run while Errand runs.',
        ]
      : []),
    USAGE_LINE,
    CONNECTIONS_LINE,
    CONSOLE_MEMORY_LINE,
    CONSOLE_SKILLS_LINE,
    ADMIN_LINE,
    HELP_LINE,
  ].join('\n');
}
