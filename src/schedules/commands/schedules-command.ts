import { z } from 'zod';
import type { Person } from '../../access/access-policy.js';
import type { OutboundButton } from '../../chat/outbound-button.js';
import type { ChannelRef } from '../../chat/conversation-ref.js';
import type { CommandReply } from '../../chat/inbound.js';
import type { ScheduleRow } from '../../db/schema.js';
import { PAUSE_AFTER_FAILURES } from '../schedule-failures.js';
import type { ScheduleService } from '../schedule-service.js';
import { formatInZone } from '../zoned-time.js';
import type { ScheduleEditor } from './schedule-editor.js';
import type { ScheduleRights } from '../schedule-rights.js';
import { scheduleButtons } from './schedule-buttons.js';

/** With these, the list carries buttons, `add` opens the form, and every change checks the person's rights. */
export interface ScheduleManagement {
  readonly person: Person;
  readonly rights: ScheduleRights;
  readonly editor: ScheduleEditor;
}

/** Lines for `/help`. */
export const SCHEDULES_HELP = [
  "• `/schedules` — this channel's scheduled prompts, with buttons · `/schedules add` — a form for a new one · `/schedules pause|resume|delete <id>` — manage one",
  '• To schedule something, just ask me: "every weekday at 9:00 post a summary of open tasks", "remind this thread in 2 hours".',
].join('\n');

const USAGE =
  "Use `/schedules` to list this channel's schedules, or `/schedules pause <id>`, `/schedules resume <id>`, `/schedules delete <id>`.";
const ICON: Record<ScheduleRow['status'], string> = { active: '▶️', paused: '⏸️', completed: '✅', error: '⚠️' };
const PROMPT_PREVIEW = 80;

const actionArgs = z.tuple([
  z.enum(['pause', 'resume', 'delete']),
  z
    .string()
    .regex(/^#?\d+$/)
    .transform((s) => Number(s.replace('#', ''))),
]);

/** One line per schedule: id, description, next run, status (and why it failed, when it did). */
export function formatScheduleLine(row: ScheduleRow, service: ScheduleService): string {
  const { description, nextRuns } = service.preview(row, 1);
  const prompt = row.prompt.length > PROMPT_PREVIEW ? `${row.prompt.slice(0, PROMPT_PREVIEW - 1)}…` : row.prompt;
  const when =
    nextRuns[0] !== undefined ? `next: ${formatInZone(nextRuns[0], row.timezone)} · ${row.status}` : row.status;
  const target = row.target === 'thread' ? ' · in its thread' : '';
  let line = `${ICON[row.status]} #${row.id} ${description} — ${when}${target}\n    "${prompt}"`;
  if (row.failReason) line += `\n    ⚠️ ${row.failReason}`;
  if (row.status === 'active' && row.consecutiveFailures > 0) {
    line += ` (${row.consecutiveFailures} failed run${row.consecutiveFailures === 1 ? '' : 's'} in a row; paused after ${PAUSE_AFTER_FAILURES})`;
  }
  return line;
}

/** `/schedules [pause|resume|delete <id>]`, for the channel the command came from. */
export async function handleSchedulesCommand(
  args: string,
  channel: ChannelRef,
  service: ScheduleService,
  manage?: ScheduleManagement,
): Promise<CommandReply> {
  const words = args
    .trim()
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
  if (words.length === 0 || (words.length === 1 && words[0] === 'list')) {
    const rows = await service.list(channel);
    const mayManage = (row: ScheduleRow) =>
      manage !== undefined && manage.rights.refusal(manage.person, { row, place: { memberOf: null } }) === null;
    const buttons: OutboundButton[] = rows.flatMap((r) => (mayManage(r) ? scheduleButtons(r) : []));
    if (rows.length === 0)
      return {
        text: `No schedules in this channel. Ask me, e.g. "every weekday at 9:00 summarise the open tasks here"${manage ? ', or use `/schedules add`' : ''}.`,
      };
    return {
      text: [`**Schedules in this channel**`, ...rows.map((r) => formatScheduleLine(r, service))].join('\n'),
      ...(buttons.length > 0 ? { buttons } : {}),
    };
  }
  if (manage && words.length === 1 && (words[0] === 'add' || words[0] === 'new')) {
    return manage.editor.onAction(
      {
        kind: 'schedule',
        op: 'new',
        scheduleId: null,
        platform: channel.platform,
        workspace: channel.workspace,
        userId: manage.person.userId,
        channel,
        memberOf: null,
      },
      manage.person,
    );
  }
  const parsed = actionArgs.safeParse(words);
  if (!parsed.success) {
    if (words.length === 1 && ['pause', 'resume', 'delete'].includes(words[0]!))
      return { text: `Which one? Add the schedule id: \`/schedules ${words[0]} <id>\` (see \`/schedules\` for ids).` };
    return { text: `I don't understand "${args.trim()}". ${USAGE}` };
  }
  const [action, id] = parsed.data;
  const row = await service.find(id);
  const refusal = manage && row ? manage.rights.refusal(manage.person, { row, place: { memberOf: null } }) : null;
  if (refusal) return { text: refusal };
  const r = await (action === 'pause'
    ? service.pause(channel, id)
    : action === 'resume'
      ? service.resume(channel, id)
      : service.delete(channel, id));
  if (!r.ok) return { text: r.error };
  const description = service.preview(r.schedule, 1).description;
  if (action === 'delete') return { text: `Deleted schedule #${id} (${description}).` };
  if (action === 'pause')
    return { text: `Paused schedule #${id} (${description}). Resume it with \`/schedules resume ${id}\`.` };
  return { text: `Resumed schedule #${id}: ${formatScheduleLine(r.schedule, service)}` };
}
