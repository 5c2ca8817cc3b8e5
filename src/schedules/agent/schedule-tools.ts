import { z } from 'zod';
import type { ScheduleRights } from '../schedule-rights.js';
import { channelOf } from '../../chat/conversation-ref.js';
import type { Schedule } from '../schedule-service.js';
import type { ScheduleResult, ScheduleService } from '../schedule-service.js';
import { formatInZone, isoInZone } from '../zoned-time.js';
import {
  defineTool,
  fail,
  ok,
  type ToolContext,
  type ToolDefinition,
  type ToolOutcome,
} from '../../agent/tools/tool.js';

/** A paragraph for the system prompt: how to turn "every weekday at 9" into a schedule. */
export const SCHEDULES_PROMPT =
  '- You can run prompts later or repeatedly with schedule_prompt: kind "once" (spec = ISO 8601 date-time, read in the timezone unless it has an offset), "cron" (spec = 5-field cron in the timezone, e.g. "0 9 * * 1-5" = weekdays at 09:00) or "interval" (spec = minutes). Target "channel" (default) posts each run as a new thread in this channel; "thread" queues it in this conversation. Use the user\'s timezone unless they name another, and confirm with the description and next fire times from the result. list_schedules, pause_schedule, resume_schedule and delete_schedule manage them.';

const scheduleId = z.union([
  z.number().int().positive(),
  z
    .string()
    .trim()
    .regex(/^#?\d+$/, 'schedule_id must be a schedule number (see list_schedules)')
    .transform((s) => Number(s.replace('#', ''))),
]);

/** The shape the model sees for a schedule: description and times in the schedule's own timezone. */
export function scheduleView(row: Schedule, service: ScheduleService) {
  const { description, nextRuns } = service.preview(row);
  return {
    id: row.id,
    description,
    prompt: row.prompt,
    kind: row.kind,
    spec: row.spec,
    timezone: row.timezone,
    target: row.target,
    status: row.status,
    next_runs: nextRuns.map((at) => ({ local: formatInZone(at, row.timezone), iso: isoInZone(at, row.timezone) })),
    run_count: row.runCount,
    ...(row.lastRunAt !== null ? { last_run: formatInZone(row.lastRunAt, row.timezone) } : {}),
    ...(row.failReason ? { fail_reason: row.failReason } : {}),
  };
}

/**
 * Scheduled-prompt tools, scoped to the channel of the calling run. Every change goes through the same
 * rights check as the commands, buttons and forms, for the run's principal.
 */
export function createScheduleTools(service: ScheduleService, rights: ScheduleRights): ToolDefinition[] {
  const result = async (pending: Promise<ScheduleResult>): Promise<ToolOutcome> => {
    const r = await pending;
    return r.ok ? ok({ schedule: scheduleView(r.schedule, service) }) : fail(r.error);
  };
  /** The principal's right to change this channel's schedule `id`: null when allowed (or when there is no such schedule here: the change says so). */
  const refusalFor = async (id: number, ctx: ToolContext): Promise<string | null> => {
    const row = await service.find(id);
    if (
      !row ||
      row.platform !== ctx.conversation.platform ||
      row.workspace !== ctx.conversation.workspace ||
      row.channel !== ctx.conversation.channel
    )
      return null;
    const refusal = rights.refusal(ctx.principal ?? null, { row, place: null });
    return refusal ? `${refusal.replace(' Ask an admin.', '')} Tell the person to ask an admin.` : null;
  };
  const change = async (id: number, ctx: ToolContext, apply: () => Promise<ToolOutcome>): Promise<ToolOutcome> => {
    const refusal = await refusalFor(id, ctx);
    return refusal ? fail(refusal) : apply();
  };
  const idArgs = z.object({ schedule_id: scheduleId });
  return [
    defineTool({
      name: 'schedule_prompt',
      // A scheduled run that could schedule would let one prompt multiply itself up to the channel's cap.
      availableIn: (ctx) => ctx.scheduled !== true,
      description:
        'Run a prompt later or repeatedly. kind "once": spec is an ISO 8601 date-time; "cron": a 5-field cron expression evaluated in the timezone; "interval": a number of minutes. timezone defaults to the user\'s. target "channel" (default) starts a new thread in this channel each time; "thread" queues the prompt in this conversation. Returns the id, a description and the next fire times: confirm them to the user.',
      parameters: z.object({
        prompt: z.string().trim().min(1, 'prompt must say what to do when the schedule fires').max(8000),
        kind: z.enum(['once', 'cron', 'interval'], { message: 'kind must be "once", "cron" or "interval"' }),
        spec: z.union([z.string(), z.number()]).transform(String),
        timezone: z.string().trim().min(1).max(64).optional(),
        target: z.enum(['channel', 'thread'], { message: 'target must be "channel" or "thread"' }).optional(),
      }),
      execute: (args, ctx) =>
        rights.refusal(ctx.principal ?? null, {
          after: { channel: ctx.conversation.channel, target: args.target ?? 'channel' },
          place: null,
        }) !== null
          ? fail(
              'Only admins may create schedules that post into a channel here. Tell the person to ask an admin, or use target "thread" to repeat the prompt in this conversation.',
            )
          : result(
              service.create({
                channel: channelOf(ctx.conversation),
                target: args.target ?? 'channel',
                conversationId: ctx.conversationId,
                prompt: args.prompt,
                kind: args.kind,
                spec: args.spec,
                timezone: args.timezone ?? ctx.timezone,
                createdBy: ctx.principal?.userId ?? 'agent',
                creatorRoles: ctx.principal?.roles ?? null,
              }),
            ),
    }),
    defineTool({
      name: 'list_schedules',
      description: "This channel's schedules with ids, descriptions, status and next fire times.",
      parameters: z.object({}),
      execute: async (_args, ctx) =>
        ok({ schedules: (await service.list(channelOf(ctx.conversation))).map((row) => scheduleView(row, service)) }),
    }),
    defineTool({
      name: 'pause_schedule',
      description: 'Pause a schedule: it stops firing until resumed.',
      parameters: idArgs,
      execute: ({ schedule_id }, ctx) =>
        change(schedule_id, ctx, () => result(service.pause(channelOf(ctx.conversation), schedule_id))),
    }),
    defineTool({
      name: 'resume_schedule',
      description: 'Resume a paused schedule from now on (times missed while paused are not made up).',
      parameters: idArgs,
      execute: ({ schedule_id }, ctx) =>
        change(schedule_id, ctx, () => result(service.resume(channelOf(ctx.conversation), schedule_id))),
    }),
    defineTool({
      name: 'delete_schedule',
      description: 'Delete a schedule for good.',
      parameters: idArgs,
      execute: ({ schedule_id }, ctx) =>
        change(schedule_id, ctx, async () => {
          const r = await service.delete(channelOf(ctx.conversation), schedule_id);
          return r.ok
            ? ok({ deleted: schedule_id, description: service.preview(r.schedule).description })
            : fail(r.error);
        }),
    }),
  ];
}
