import { stopActionId } from '../chat/action-id.js';
import type { OutboundButton } from '../chat/outbound-button.js';
import type { CommandReply, InboundCommand } from '../chat/inbound.js';
import type { ConversationRow, RunRow, TaskRow } from '../db/schema.js';
import type { CommandDeps } from './command-deps.js';

const RECENT_FINISHED = 5;
const ICON: Record<TaskRow['status'], string> = {
  pending: '•',
  in_progress: '▶️',
  completed: '✅',
  failed: '❌',
  cancelled: '⏹️',
};

/** One line per task, with what it waits for. */
export function formatTask(t: TaskRow, run: RunRow | null): string {
  let line = `${ICON[t.status]} #${t.id} ${t.title}`;
  if (t.status === 'in_progress' && run?.status === 'waiting_user')
    line += ` — waiting for an answer: "${run.question?.question ?? ''}"`;
  // `steps` counts the steps recorded so far: a running run is at work on the next one.
  else if (t.status === 'in_progress') line += ` — working${run ? ` (step ${run.steps + 1})` : ''}`;
  else if (t.status === 'pending' && t.blocked) line += ` — waiting for #${t.blockedBy.join(', #')}`;
  else if (t.status === 'pending' && t.attempts > 0) line += ` — retrying (attempt ${t.attempts + 1})`;
  if (t.status === 'failed' && t.failReason) line += ` — ${t.failReason}`;
  return line;
}

async function describeConversation(
  deps: CommandDeps,
  c: ConversationRow,
  heading: string | null,
): Promise<string | null> {
  const tasks = await deps.tasks.list(c.id);
  const open = tasks.filter((t) => t.status === 'pending' || t.status === 'in_progress');
  const finished = tasks.filter((t) => t.status !== 'pending' && t.status !== 'in_progress').slice(-RECENT_FINISHED);
  if (heading !== null && open.length === 0) return null;
  const run = await deps.runs.active(c.id);
  const lines = [...finished, ...open].map((t) => formatTask(t, t.status === 'in_progress' ? run : null));
  if (lines.length === 0) return null;
  return [heading, ...lines].filter((l): l is string => l !== null).join('\n');
}

/** A Stop button per conversation whose run the person may stop, named after the task it works on. */
async function stopButtons(
  cmd: InboundCommand,
  deps: CommandDeps,
  conversationIds: readonly string[],
): Promise<OutboundButton[]> {
  const person = { platform: cmd.channel.platform, userId: cmd.userId, ...(cmd.roles ? { roles: cmd.roles } : {}) };
  const buttons: OutboundButton[] = [];
  for (const id of conversationIds) {
    const run = await deps.runs.active(id);
    if (!run || (deps.authority && !(await deps.authority.mayStop(id, person)))) continue;
    buttons.push({
      actionId: stopActionId(run.id),
      label: run.taskId !== null ? `Stop #${run.taskId}` : 'Stop',
      style: 'danger',
    });
  }
  return buttons;
}

const withButtons = (text: string, buttons: OutboundButton[]): CommandReply =>
  buttons.length > 0 ? { text, buttons } : { text };

/** `/tasks`: the active run and to-do list of this conversation, or of every conversation of the channel. */
export async function handleTasksCommand(cmd: InboundCommand, deps: CommandDeps): Promise<CommandReply> {
  if (cmd.conversation) {
    const id = await deps.conversations.ensure(cmd.conversation);
    const body = await describeConversation(deps, (await deps.conversations.get(id))!, null);
    if (!body) return { text: 'No tasks here yet. Mention me with a request and I will get to work.' };
    return withButtons(`**To-do list of this conversation**\n${body}`, await stopButtons(cmd, deps, [id]));
  }
  const open = await deps.conversations.listWithOpenWork(cmd.channel);
  const sections: string[] = [];
  for (const c of open) {
    const section = await describeConversation(deps, c, `**${c.thread ? `Thread ${c.thread}` : 'Channel'}**`);
    if (section !== null) sections.push(section);
  }
  if (sections.length === 0) return { text: 'No open tasks in this channel.' };
  return withButtons(
    `**Open tasks in this channel**\n${sections.join('\n\n')}`,
    await stopButtons(
      cmd,
      deps,
      open.map((c) => c.id),
    ),
  );
}
