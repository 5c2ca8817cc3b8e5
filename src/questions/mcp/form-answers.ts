import type { ElicitationField, ElicitationValues } from '../../chat/elicitation-form.js';

/** A value of an accepted elicitation, as MCP sends it back: string, number, boolean or a list of strings. */
export type ElicitedValue = string | number | boolean | string[];

/** A submission checked against its form: the content to send, or one message per field that is wrong. */
export type CheckedAnswers =
  | { readonly ok: true; readonly content: Record<string, ElicitedValue> }
  | { readonly ok: false; readonly errors: Record<string, string> };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const YES = new Set(['true', 'yes', 'y']);
const NO = new Set(['false', 'no', 'n']);

const isEmpty = (v: string | readonly string[] | null | undefined): boolean =>
  v === null || v === undefined || (typeof v === 'string' ? v.trim() === '' : v.length === 0);

/**
 * Checks what a person entered against the form the server asked for (types, lengths, formats, bounds,
 * choices, required fields), the same for every platform. A field left empty takes its default, so a
 * person who accepts without touching a field sends the server's default; required fields without one
 * must be filled. Unknown names are ignored: only the form's fields go to the server.
 */
export function checkAnswers(fields: readonly ElicitationField[], values: ElicitationValues): CheckedAnswers {
  const content: Record<string, ElicitedValue> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const raw = values[field.name];
    if (isEmpty(raw)) {
      const initial = field.initial;
      if (initial !== null)
        content[field.name] = Array.isArray(initial)
          ? [...(initial as readonly string[])]
          : (initial as string | number | boolean);
      else if (field.required) errors[field.name] = 'Required.';
      continue;
    }
    const checked = checkField(field, raw!);
    if ('error' in checked) errors[field.name] = checked.error;
    else content[field.name] = checked.value;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, content };
}

type FieldCheck = { value: ElicitedValue } | { error: string };

function checkField(field: ElicitationField, raw: string | readonly string[]): FieldCheck {
  const one = typeof raw === 'string' ? raw.trim() : (raw[0] ?? '').trim();
  switch (field.kind) {
    case 'text':
      return checkText(field, typeof raw === 'string' ? raw : one);
    case 'number': {
      const n = Number(one.replace(/,/g, ''));
      if (one === '' || !Number.isFinite(n))
        return { error: field.integer ? 'Enter a whole number.' : 'Enter a number.' };
      if (field.integer && !Number.isInteger(n)) return { error: 'Enter a whole number.' };
      if (field.minimum !== null && n < field.minimum) return { error: `Enter ${field.minimum} or more.` };
      if (field.maximum !== null && n > field.maximum) return { error: `Enter ${field.maximum} or less.` };
      return { value: n };
    }
    case 'boolean': {
      const v = one.toLowerCase();
      if (YES.has(v)) return { value: true };
      if (NO.has(v)) return { value: false };
      return { error: 'Answer yes or no.' };
    }
    case 'choice': {
      const match = pick(field.options, one);
      return match === null
        ? { error: `Choose one of: ${field.options.map((o) => o.label).join(', ')}.` }
        : { value: match };
    }
    case 'multi': {
      const items = typeof raw === 'string' ? raw.split(',') : [...raw];
      const picked: string[] = [];
      for (const item of items.map((i) => i.trim()).filter((i) => i !== '')) {
        const match = pick(field.options, item);
        if (match === null)
          return { error: `"${item}" is not one of: ${field.options.map((o) => o.label).join(', ')}.` };
        if (!picked.includes(match)) picked.push(match);
      }
      if (field.minItems !== null && picked.length < field.minItems)
        return { error: `Choose at least ${field.minItems}.` };
      if (field.maxItems !== null && picked.length > field.maxItems)
        return { error: `Choose at most ${field.maxItems}.` };
      return { value: picked };
    }
  }
}

/** The option a value names: its value exactly, else its label or value in any case (typed on the console). */
function pick(options: readonly { value: string; label: string }[], typed: string): string | null {
  const exact = options.find((o) => o.value === typed);
  if (exact) return exact.value;
  const lower = typed.toLowerCase();
  return options.find((o) => o.label.toLowerCase() === lower || o.value.toLowerCase() === lower)?.value ?? null;
}

function checkText(field: Extract<ElicitationField, { kind: 'text' }>, raw: string): FieldCheck {
  const value = field.format === null ? raw : raw.trim();
  const length = [...value].length;
  if (field.minLength !== null && length < field.minLength)
    return { error: `Enter at least ${field.minLength} characters.` };
  if (field.maxLength !== null && length > field.maxLength)
    return { error: `Enter at most ${field.maxLength} characters.` };
  switch (field.format) {
    case 'email':
      return EMAIL.test(value) ? { value } : { error: 'Enter an email address, like name@example.com.' };
    case 'uri':
      return URL.canParse(value) ? { value } : { error: 'Enter a full address, like https://example.com.' };
    case 'date': {
      const m = DATE.exec(value);
      const at = Date.parse(`${value}T00:00:00Z`);
      const ok = m !== null && Number.isFinite(at) && new Date(at).toISOString().startsWith(value);
      return ok ? { value } : { error: 'Enter a date as YYYY-MM-DD.' };
    }
    case 'date-time':
      return DATE_TIME.test(value) && Number.isFinite(Date.parse(value))
        ? { value }
        : { error: 'Enter a date and time like 2026-01-31T09:30:00Z.' };
    default:
      return { value };
  }
}
