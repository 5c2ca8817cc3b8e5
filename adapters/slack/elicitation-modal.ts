import { z } from 'zod';
import {
  YES_NO_OPTIONS,
  type ElicitationField,
  type ElicitationForm,
  type ElicitationOption,
  type ElicitationValues,
} from '../../src/chat/elicitation-form.js';

/** The callback id of an MCP server's question form. */
export const ELICITATION_FORM_CALLBACK = 'errand-elicitation';

const ACTION = 'value';
/** Slack's limits: a modal title 24 characters, an option's text 75 and value 150, a select 100 options, radio buttons 10. */
const TITLE_MAX = 24;
const OPTION_TEXT_MAX = 75;
const OPTION_VALUE_MAX = 150;
const SELECT_MAX = 100;
const LABEL_MAX = 2000;
const HINT_MAX = 2000;
const SECTION_MAX = 3000;
const INPUT_MAX = 3000;

const plain = (text: string, max: number) => ({
  type: 'plain_text',
  text: text.length > max ? `${text.slice(0, max - 1)}…` : text || ' ',
});

/** The block id of field `i` (a field's name can be anything; the names ride in private_metadata in order). */
const blockOf = (i: number) => `field-${i}`;

/** Slack options carry the option's index as value, so any server value (of any length) comes back exactly. */
function options(list: readonly ElicitationOption[]): { text: unknown; value: string }[] {
  return list
    .slice(0, SELECT_MAX)
    .map((o, i) => ({ text: plain(o.label, OPTION_TEXT_MAX), value: String(i).slice(0, OPTION_VALUE_MAX) }));
}

function initialOf(
  list: readonly ElicitationOption[],
  value: string | null,
): { text: unknown; value: string } | undefined {
  const i = value === null ? -1 : list.findIndex((o) => o.value === value);
  return i >= 0 && i < SELECT_MAX ? options(list)[i] : undefined;
}

function element(field: ElicitationField): Record<string, unknown> {
  const base = { action_id: ACTION };
  switch (field.kind) {
    case 'text': {
      const bounds = {
        ...(field.minLength !== null ? { min_length: Math.min(field.minLength, INPUT_MAX) } : {}),
        max_length: Math.min(field.maxLength ?? INPUT_MAX, INPUT_MAX),
      };
      const initial = field.initial ?? undefined;
      if (field.format === 'email')
        return { ...base, type: 'email_text_input', ...(initial ? { initial_value: initial } : {}) };
      if (field.format === 'uri')
        return { ...base, type: 'url_text_input', ...(initial ? { initial_value: initial } : {}) };
      if (field.format === 'date')
        return {
          ...base,
          type: 'datepicker',
          ...(initial && /^\d{4}-\d{2}-\d{2}$/.test(initial) ? { initial_date: initial } : {}),
        };
      const long = (field.maxLength ?? INPUT_MAX) > 150 && field.format === null;
      return {
        ...base,
        type: 'plain_text_input',
        multiline: long,
        ...bounds,
        ...(initial ? { initial_value: initial } : {}),
        ...(field.format === 'date-time' ? { placeholder: plain('2026-01-31T09:30:00Z', 150) } : {}),
      };
    }
    case 'number':
      return {
        ...base,
        type: 'number_input',
        is_decimal_allowed: !field.integer,
        ...(field.minimum !== null ? { min_value: String(field.minimum) } : {}),
        ...(field.maximum !== null ? { max_value: String(field.maximum) } : {}),
        ...(field.initial !== null ? { initial_value: String(field.initial) } : {}),
      };
    case 'boolean': {
      const initial = field.initial === null ? undefined : initialOf(YES_NO_OPTIONS, String(field.initial));
      return {
        ...base,
        type: 'radio_buttons',
        options: options(YES_NO_OPTIONS),
        ...(initial ? { initial_option: initial } : {}),
      };
    }
    case 'choice': {
      const initial = initialOf(field.options, field.initial);
      return {
        ...base,
        type: 'static_select',
        options: options(field.options),
        ...(initial ? { initial_option: initial } : {}),
      };
    }
    case 'multi': {
      const initial = (field.initial ?? []).map((v) => initialOf(field.options, v)).filter((o) => o !== undefined);
      return {
        ...base,
        type: 'multi_static_select',
        options: options(field.options),
        ...(initial.length > 0 ? { initial_options: initial } : {}),
        ...(field.maxItems !== null && field.maxItems >= 1 ? { max_selected_items: field.maxItems } : {}),
      };
    }
  }
}

/** The modal for a form: the server's name in the title, its message, one input per field with its default filled in. */
export function elicitationModal(form: ElicitationForm): Record<string, unknown> {
  const blocks: unknown[] = [
    {
      type: 'section',
      text: { type: 'mrkdwn', text: `*${form.server}* asks:\n${form.message}`.slice(0, SECTION_MAX) },
    },
  ];
  form.fields.forEach((field, i) => {
    blocks.push({
      type: 'input',
      block_id: blockOf(i),
      optional: !field.required,
      label: plain(field.label, LABEL_MAX),
      ...(field.description ? { hint: plain(field.description, HINT_MAX) } : {}),
      element: element(field),
    });
  });
  return {
    type: 'modal',
    callback_id: ELICITATION_FORM_CALLBACK,
    private_metadata: JSON.stringify({ id: form.id, fields: form.fields.map((f) => f.name) }),
    title: plain(`Answer ${form.server}`, TITLE_MAX),
    submit: { type: 'plain_text', text: 'Send' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks,
  };
}

/** A modal that only says something (the question closed while its form was open). */
export function noticeModal(text: string): Record<string, unknown> {
  return {
    type: 'modal',
    title: plain('Question closed', TITLE_MAX),
    close: { type: 'plain_text', text: 'Close' },
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: text.slice(0, SECTION_MAX) } }],
  };
}

const selected = z.object({ value: z.string() });
const inputState = z.object({
  value: z.string().nullish(),
  selected_date: z.string().nullish(),
  selected_option: selected.nullish(),
  selected_options: z.array(selected).nullish(),
});
const submissionSchema = z.object({
  private_metadata: z.string(),
  blocks: z.array(z.unknown()).optional(),
  state: z.object({ values: z.record(z.string(), z.record(z.string(), inputState)) }),
});
const metadataSchema = z.object({ id: z.string(), fields: z.array(z.string()) });

/** What a submitted question form holds: the elicitation's id, and each field's entry by name (options' indexes still to map). */
export interface ReadElicitationModal {
  readonly id: string;
  readonly names: readonly string[];
  /** By field name: text as typed, `selected` option indexes for selects. */
  readonly raw: Readonly<Record<string, { text: string | null } | { picked: readonly number[] }>>;
}

/** Reads a submitted question form; null when it is not one Errand built. */
export function readElicitationModal(view: unknown): ReadElicitationModal | null {
  const parsed = submissionSchema.safeParse(view);
  if (!parsed.success) return null;
  let meta: z.infer<typeof metadataSchema>;
  try {
    const m = metadataSchema.safeParse(JSON.parse(parsed.data.private_metadata));
    if (!m.success) return null;
    meta = m.data;
  } catch {
    return null;
  }
  const raw: Record<string, { text: string | null } | { picked: readonly number[] }> = {};
  meta.fields.forEach((name, i) => {
    const input = parsed.data.state.values[blockOf(i)]?.[ACTION];
    if (!input) return;
    if (input.selected_options) raw[name] = { picked: input.selected_options.map((o) => Number(o.value)) };
    else if (input.selected_option !== undefined)
      raw[name] = { picked: input.selected_option ? [Number(input.selected_option.value)] : [] };
    else raw[name] = { text: input.selected_date ?? input.value ?? null };
  });
  return { id: meta.id, names: meta.fields, raw };
}

/** The values of a read form, with option indexes turned back into the server's values (the form says which). */
export function valuesOf(read: ReadElicitationModal, form: ElicitationForm): ElicitationValues {
  const values: Record<string, string | readonly string[] | null> = {};
  for (const field of form.fields) {
    const entry = read.raw[field.name];
    if (!entry) continue;
    if ('text' in entry) values[field.name] = entry.text;
    else {
      const list =
        field.kind === 'boolean'
          ? YES_NO_OPTIONS
          : field.kind === 'choice' || field.kind === 'multi'
            ? field.options
            : [];
      const picked = entry.picked.map((i) => list[i]?.value).filter((v): v is string => v !== undefined);
      values[field.name] = field.kind === 'multi' ? picked : (picked[0] ?? null);
    }
  }
  return values;
}

/** Field errors keyed by the modal's block ids, as `response_action: errors` wants them. */
export function modalErrors(
  read: ReadElicitationModal,
  errors: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, message] of Object.entries(errors)) {
    const i = read.names.indexOf(name);
    if (i >= 0) out[blockOf(i)] = message.slice(0, 2000);
  }
  return out;
}
