import type { Person } from '../../access/access-policy.js';
import type { ChannelRef } from '../../chat/conversation-ref.js';
import type { CommandReply, InboundAction } from '../../chat/inbound.js';
import type {
  ScheduleFormField,
  ScheduleFormRequest,
  ScheduleFormResult,
  ScheduleFormSubmission,
  ScheduleFormValues,
} from '../../chat/schedule-form.js';
import type { ScheduleService } from '../schedule-service.js';
import { describeTiming } from '../schedule-timing.js';
import { readWhen, whenOf } from '../schedule-when.js';
import type { WhenInterpreter } from '../agent/when-interpreter.js';
import { canonicalTimezone, formatInZone } from '../zoned-time.js';
import type { ScheduleRights } from '../schedule-rights.js';

export interface ScheduleEditorDeps {
  service: ScheduleService;
  rights: ScheduleRights;
  interpretWhen: WhenInterpreter;
  /** The person's timezone where the platform knows it (the form's default). */
  userTimezone: (platform: string, userId: string) => Promise<string | null>;
  defaultTimezone: string;
  now: () => number;
}

type ScheduleAction = Extract<InboundAction, { kind: 'schedule' }>;
type FieldErrors = Partial<Record<ScheduleFormField, string>>;

const WHEN_HELP =
  'a cron like "0 9 * * 1-5", a number of minutes like 60, a date-time like 2026-03-09T09:00, or words like "every weekday at 9"';

/**
 * The schedule buttons and form, platform-neutral: Pause/Resume/Delete act at once, New/Edit open
 * the form, and a submitted form is checked field by field with the same rules and messages as
 * the `schedule_prompt` tool before anything is saved. Every step checks the person's rights.
 */
export function createScheduleEditor(deps: ScheduleEditorDeps) {
  const { service, rights } = deps;

  async function emptyForm(person: Person, channel: ChannelRef | null): Promise<ScheduleFormRequest> {
    const timezone = (await deps.userTimezone(person.platform, person.userId)) ?? deps.defaultTimezone;
    return { scheduleId: null, values: { channel: channel?.channel ?? '', prompt: '', when: '', timezone } };
  }

  async function onAction(action: ScheduleAction, person: Person): Promise<CommandReply> {
    if (action.op === 'new') {
      if (!rights.mayCreate(person))
        return { text: 'Only admins may create schedules that post into a channel here. Ask an admin.' };
      return { text: 'Opening the schedule form…', form: await emptyForm(person, action.channel) };
    }
    const id = action.scheduleId ?? 0;
    const row = await service.find(id);
    if (!row || row.platform !== action.platform || row.workspace !== action.workspace)
      return { text: `There is no schedule #${id} any more.`, homeChanged: true };
    const refusal = rights.refusal(person, { row, place: { memberOf: action.memberOf } });
    if (refusal) return { text: refusal };
    const channel: ChannelRef = { platform: row.platform, workspace: row.workspace, channel: row.channel };
    if (action.op === 'edit') {
      return {
        text: `Editing schedule #${id}…`,
        form: {
          scheduleId: id,
          values: { channel: row.channel, prompt: row.prompt, when: whenOf(row), timezone: row.timezone },
        },
      };
    }
    const r = await (action.op === 'pause'
      ? service.pause(channel, id)
      : action.op === 'resume'
        ? service.resume(channel, id)
        : service.delete(channel, id));
    if (!r.ok) return { text: r.error, homeChanged: true };
    const description = describeTiming(r.schedule);
    const done = action.op === 'pause' ? 'Paused' : action.op === 'resume' ? 'Resumed' : 'Deleted';
    return { text: `${done} schedule #${id} (${description}).`, homeChanged: true };
  }

  /** Reads `when`: exact specs are checked; plain words go to the model once and come back to confirm. */
  async function readTiming(
    values: ScheduleFormValues,
    timezone: string,
  ): Promise<
    | { kind: 'ok'; spec: { kind: 'once' | 'cron' | 'interval'; spec: string } }
    | { kind: 'error'; field: ScheduleFormField; error: string }
    | { kind: 'confirm'; form: Omit<ScheduleFormRequest, 'scheduleId'> }
  > {
    const read = readWhen(values.when);
    if (read.kind !== 'words') {
      const parsed = service.checkTiming(read.kind, read.spec, timezone);
      return parsed.ok ? { kind: 'ok', spec: read } : { kind: 'error', field: 'when', error: parsed.error };
    }
    if (read.words === '') return { kind: 'error', field: 'when', error: `Say when: ${WHEN_HELP}.` };
    const guess = await deps.interpretWhen(read.words, timezone, deps.now()).catch(() => null);
    if (!guess)
      return { kind: 'error', field: 'when', error: `I couldn't read "${read.words}" as a time. Use ${WHEN_HELP}.` };
    const parsed = service.checkTiming(guess.kind, guess.spec, timezone);
    if (!parsed.ok)
      return {
        kind: 'error',
        field: 'when',
        error: `I read "${read.words}" as ${guess.kind} "${guess.spec}", but: ${parsed.error}`,
      };
    const timing = { kind: guess.kind, spec: parsed.spec, timezone: parsed.timezone };
    const note = `I read "${read.words}" as: *${describeTiming({ ...timing, anchorAt: deps.now() })}* — first run ${formatInZone(parsed.firstRunAt, parsed.timezone)}. Submit again to save it, or change "when".`;
    return { kind: 'confirm', form: { values: { ...values, when: whenOf(timing), timezone: parsed.timezone }, note } };
  }

  async function onSubmit(form: ScheduleFormSubmission): Promise<ScheduleFormResult> {
    const person: Person =
      form.actingAs ??
      (form.roles && form.roles.length > 0
        ? { platform: form.platform, userId: form.userId, roles: form.roles }
        : { platform: form.platform, userId: form.userId });
    const values: ScheduleFormValues = {
      channel: form.values.channel.trim(),
      prompt: form.values.prompt.trim(),
      when: form.values.when.trim(),
      timezone: form.values.timezone.trim() || deps.defaultTimezone,
    };
    const errors: FieldErrors = {};
    const back = (): ScheduleFormResult => ({ kind: 'errors', errors, form: { scheduleId: form.scheduleId, values } });
    const existing = form.scheduleId !== null ? await service.find(form.scheduleId) : null;
    if (
      form.scheduleId !== null &&
      (!existing || existing.platform !== form.platform || existing.workspace !== form.workspace)
    ) {
      errors.prompt = `Schedule #${form.scheduleId} no longer exists. Close this form and create a new one.`;
      return back();
    }
    if (values.channel === '') errors.channel = 'Choose the channel the schedule posts into.';
    else {
      // Saved in the same channel, an existing schedule keeps its target; moved elsewhere it becomes a new channel schedule.
      const target = existing && existing.channel === values.channel ? existing.target : 'channel';
      const refusal = rights.refusal(person, {
        ...(existing ? { row: existing } : {}),
        after: { channel: values.channel, target },
        place: { memberOf: form.memberOf },
      });
      if (refusal) errors.channel = refusal;
    }
    if (values.prompt === '') errors.prompt = 'The prompt is empty. Say what should be done when the schedule fires.';
    if (canonicalTimezone(values.timezone) === null)
      errors.timezone = `Unknown timezone "${values.timezone}". Use an IANA name such as Europe/Berlin, America/New_York or UTC.`;
    if (Object.keys(errors).length > 0) {
      if (values.when === '') errors.when = `Say when: ${WHEN_HELP}.`;
      return back();
    }
    const timing = await readTiming(values, values.timezone);
    if (timing.kind === 'error') {
      errors[timing.field] = timing.error;
      return back();
    }
    if (timing.kind === 'confirm') return { kind: 'confirm', form: { scheduleId: form.scheduleId, ...timing.form } };
    const channel: ChannelRef = { platform: form.platform, workspace: form.workspace, channel: values.channel };
    const input = { prompt: values.prompt, kind: timing.spec.kind, spec: timing.spec.spec, timezone: values.timezone };
    let saved;
    if (existing && existing.channel === values.channel) saved = await service.edit(channel, existing.id, input);
    else {
      saved = await service.create({
        channel,
        target: 'channel',
        conversationId: null,
        createdBy: form.userId,
        ...input,
      });
      if (saved.ok && existing)
        await service.delete(
          { platform: existing.platform, workspace: existing.workspace, channel: existing.channel },
          existing.id,
        );
    }
    if (!saved.ok) {
      errors[/channel/.test(saved.error) ? 'channel' : 'when'] = saved.error;
      return back();
    }
    const { description, nextRuns } = service.preview(saved.schedule, 1);
    const next =
      nextRuns[0] !== undefined
        ? ` Next run: ${formatInZone(nextRuns[0], saved.schedule.timezone)}.`
        : ` It is ${saved.schedule.status}.`;
    return {
      kind: 'saved',
      text: `${existing ? 'Updated' : 'Created'} schedule #${saved.schedule.id}: ${description}.${next}`,
    };
  }

  return { onAction, onSubmit };
}

export type ScheduleEditor = ReturnType<typeof createScheduleEditor>;
