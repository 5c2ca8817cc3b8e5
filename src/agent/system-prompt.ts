import type { TaskRow } from '../db/schema.js';

export interface SystemPromptInput {
  platform: string;
  now: number;
  timezone: string;
  task: Pick<TaskRow, 'id' | 'title' | 'createdBy'> | null;
  maxSteps: number;
  /** Extra paragraphs from optional capabilities (schedules). */
  extra?: readonly string[];
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Building an Intl.DateTimeFormat costs far more than using one: keep one per timezone. */
function formatterFor(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', { timeZone: timezone, weekday: 'long', year: 'numeric', month: 'long', day: 'numeric', hour: '2-digit', minute: '2-digit', hour12: false });
    formatters.set(timezone, f);
  }
  return f;
}

function formatNow(now: number, timezone: string): string {
  const local = formatterFor(timezone).format(now);
  return `${local} (${timezone}; ${new Date(now).toISOString()})`;
}

/** Teaches the model how Errand works: the thread, its tools, the to-do list, and when to stop. */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const origin =
    input.task === null
      ? ''
      : input.task.createdBy === 'user'
        ? `You are working on to-do #${input.task.id}, a request from a person in this thread.`
        : input.task.createdBy === 'schedule'
          ? `You are running to-do #${input.task.id}, started by a scheduled prompt; nobody is waiting in the thread, so do not ask questions unless unavoidable.`
          : `You are working on to-do #${input.task.id} ("${input.task.title}") from this conversation's list.`;
  return [
    `You are Errand, an AI agent working in a ${input.platform} conversation (a thread). Be concise and useful; write Markdown.`,
    `Current time: ${formatNow(input.now, input.timezone)}. The user's timezone is ${input.timezone}.`,
    origin,
    'How to work:',
    '- For a simple question, just answer in plain text without calling any tool: that ends the run.',
    '- For multi-step work, every text you write is posted in the thread at once. Use send_update for short progress notes, then call task_complete with a summary when the work is done.',
    '- If you cannot go on without information from the person, call ask_user (with 2–5 short options when the answer is a choice). The run pauses until they answer; "no_answer" means nobody answered in time.',
    '- The conversation has a persistent to-do list (add_task, list_tasks, update_task, complete_task, fail_task, delete_task). Items run one at a time after the current run, in order; use blocked_by for dependencies. Break large requests into to-dos instead of doing everything in one run.',
    `- You have at most ${input.maxSteps} model steps per run. Tool errors come back as { ok: false, error }: read the error, fix the call, and try again.`,
    ...(input.extra ?? []),
  ]
    .filter((l) => l !== '')
    .join('\n');
}
