import { randomUUID } from 'node:crypto';
import { ComponentType, TextInputStyle, type APIModalInteractionResponseCallbackData } from 'discord.js';
import type { ScheduleFormRequest, ScheduleFormResult, ScheduleFormValues } from '../../src/chat/schedule-form.js';

/** Discord limits: a modal's title 45 characters, a text input's value 4 000, its label 45. */
const TITLE_MAX = 45;
const FORM_PREFIX = 'errand:schedule-form:';
const REOPEN_PREFIX = 'errand:schedule-reopen:';
const KEEP_FORMS = 500;

/**
 * The schedule form as a Discord modal: prompt, when and timezone (the channel is the one the
 * form was opened for, carried in the modal's custom id with the schedule id). Discord modals
 * cannot show errors on fields, so a refused submission is answered with the errors and a button
 * that reopens the form as it was submitted — kept here, in memory, for a while.
 */
export function createScheduleModals() {
  const kept = new Map<string, ScheduleFormRequest>();

  function modal(form: ScheduleFormRequest): APIModalInteractionResponseCallbackData {
    const v = form.values;
    const input = (
      id: keyof ScheduleFormValues,
      label: string,
      value: string,
      style: TextInputStyle,
      placeholder: string,
      required = true,
    ) => ({
      type: ComponentType.ActionRow as const,
      components: [
        {
          type: ComponentType.TextInput as const,
          custom_id: id,
          label,
          style,
          required,
          max_length: id === 'prompt' ? 4000 : 100,
          placeholder,
          ...(value ? { value: value.slice(0, 4000) } : {}),
        },
      ],
    });
    const title = form.scheduleId === null ? 'New schedule' : `Edit schedule #${form.scheduleId}`;
    return {
      custom_id: `${FORM_PREFIX}${form.scheduleId ?? 'new'}:${v.channel}`,
      title: title.slice(0, TITLE_MAX),
      components: [
        input(
          'prompt',
          'Prompt',
          v.prompt,
          TextInputStyle.Paragraph,
          'What to do each time, e.g. "Summarise yesterday\'s open tasks"',
        ),
        input('when', 'When', v.when, TextInputStyle.Short, '0 9 * * 1-5 · 60 · 2026-03-09T09:00 · every weekday at 9'),
        input('timezone', 'Timezone', v.timezone, TextInputStyle.Short, 'Europe/Berlin', false),
      ],
    };
  }

  /** Reads a submitted modal's custom id; null when it is not Errand's schedule form. */
  function formOf(customId: string): { scheduleId: number | null; channel: string } | null {
    if (!customId.startsWith(FORM_PREFIX)) return null;
    const [id, channel] = customId.slice(FORM_PREFIX.length).split(':');
    if (!channel || !/^\d{17,20}$/.test(channel) || !(id === 'new' || /^\d{1,15}$/.test(id ?? ''))) return null;
    return { scheduleId: id === 'new' ? null : Number(id), channel };
  }

  /** Keeps a form to reopen and gives the custom id of the button that reopens it. */
  function keep(form: ScheduleFormRequest): string {
    if (kept.size >= KEEP_FORMS) kept.delete(kept.keys().next().value!);
    const key = randomUUID().replace(/-/g, '');
    kept.set(key, form);
    return `${REOPEN_PREFIX}${key}`;
  }

  /** The kept form behind a reopen button; null when it is not one, or forgotten. */
  function reopened(customId: string): ScheduleFormRequest | null | undefined {
    if (!customId.startsWith(REOPEN_PREFIX)) return undefined;
    return kept.get(customId.slice(REOPEN_PREFIX.length)) ?? null;
  }

  /** The ephemeral answer to a submission: what was saved, or what to fix with a button to fix it. */
  function answer(result: ScheduleFormResult): { text: string; reopenId: string | null; label: string } {
    if (result.kind === 'saved') return { text: result.text, reopenId: null, label: '' };
    if (result.kind === 'confirm')
      return { text: `${result.form.note ?? ''}`.trim(), reopenId: keep(result.form), label: 'Review and save' };
    const lines = Object.entries(result.errors).map(([field, error]) => `• **${field}**: ${error}`);
    return { text: `The schedule was not saved:\n${lines.join('\n')}`, reopenId: keep(result.form), label: 'Fix it' };
  }

  return { modal, formOf, reopened, answer };
}

export type ScheduleModals = ReturnType<typeof createScheduleModals>;
