import { z } from 'zod';
import type { CommandReply, InboundCommand } from '../chat/inbound.js';
import { stopNotice } from '../run-records/stop-notice.js';
import type { CommandDeps } from './command-deps.js';

const stopArgs = z.union([
  z.literal(''),
  z.literal('all'),
  z
    .string()
    .regex(/^#?\d+$/)
    .transform((s) => Number(s.replace('#', ''))),
]);

/** Posts the stop note in the conversation where work stopped. */
export function announceStop(
  deps: CommandDeps,
  conversationId: string,
  userId: string,
  taskId: number | null,
  cancelled: number,
): void {
  deps.note(conversationId, stopNotice(userId, taskId, cancelled));
}

/** `/stop [task-id|all]`: in a thread, that conversation; without one (Slack), every conversation of the channel. */
export async function handleStopCommand(cmd: InboundCommand, deps: CommandDeps): Promise<CommandReply> {
  const parsed = stopArgs.safeParse(cmd.args.trim().toLowerCase());
  if (!parsed.success)
    return {
      text: `I don't understand "${cmd.args}". Use \`/stop\`, \`/stop all\` or \`/stop <task-id>\` (see \`/tasks\` for ids).`,
    };
  const arg = parsed.data;
  const person = { platform: cmd.channel.platform, userId: cmd.userId, ...(cmd.roles ? { roles: cmd.roles } : {}) };
  const all = arg === 'all';
  const mayStop = async (conversationId: string) =>
    (await (all
      ? deps.authority?.mayStopAll(conversationId, person)
      : deps.authority?.mayStop(conversationId, person))) ?? true;
  const refusal = { text: 'Only the person who asked for this work, or an admin, can stop it.' };

  if (typeof arg === 'number') {
    const task = await deps.tasks.get(arg);
    const ref = task ? deps.conversations.refOf(task.conversationId) : null;
    if (
      !task ||
      !ref ||
      ref.platform !== cmd.channel.platform ||
      ref.workspace !== cmd.channel.workspace ||
      ref.channel !== cmd.channel.channel
    ) {
      return { text: `There is no task #${arg} in this channel. Use \`/tasks\` to see the ids.` };
    }
    if (deps.authority && !deps.authority.mayStopTask(task.requestedBy, person)) return refusal;
    if (task.status === 'pending') {
      await deps.tasks.cancel(task.conversationId, task.id);
      return { text: `Cancelled pending task #${arg}.` };
    }
    if (task.status !== 'in_progress') return { text: `Task #${arg} is already ${task.status}.` };
    const r = await deps.coordinator.stopConversation(task.conversationId, false);
    announceStop(deps, task.conversationId, cmd.userId, r.stoppedTaskId, 0);
    return { text: `Stopped task #${arg}.` };
  }

  const candidates = cmd.conversation
    ? [await deps.conversations.ensure(cmd.conversation)]
    : (await deps.conversations.listWithOpenWork(cmd.channel)).map((c) => c.id);
  const targets: string[] = [];
  for (const id of candidates) if (await mayStop(id)) targets.push(id);
  if (targets.length === 0 && candidates.length > 0) return refusal;
  let stopped = 0;
  let cancelled = 0;
  for (const id of targets) {
    const r = await deps.coordinator.stopConversation(id, all);
    if (r.stoppedRun || r.cancelledPending > 0) announceStop(deps, id, cmd.userId, r.stoppedTaskId, r.cancelledPending);
    if (r.stoppedRun) stopped++;
    cancelled += r.cancelledPending;
  }
  if (stopped === 0 && cancelled === 0) return { text: 'Nothing is running here.' };
  const what = [
    stopped > 0 ? `stopped ${stopped} run${stopped === 1 ? '' : 's'}` : '',
    cancelled > 0 ? `cancelled ${cancelled} pending task${cancelled === 1 ? '' : 's'}` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  return { text: `Done: ${what}.` };
}
