import type { ScheduleRow } from '../db/schema.js';
import type { ScheduleKind } from './schedule-timing.js';
import { isoInZone } from './zoned-time.js';

/**
 * The form's single "when" field: a cron expression, a number of minutes or an ISO date-time are
 * read as they are (and validated by the same rules as `schedule_prompt`); anything else is plain
 * words for the model to turn into one of those.
 */
export type ReadWhen =
  { readonly kind: ScheduleKind; readonly spec: string } | { readonly kind: 'words'; readonly words: string };

const CRON_FIELD = /^[\d*?/,\-LW#]+$|^[a-z]{3}(-[a-z]{3})?$/i;
const ISO_START = /^\d{4}-\d{2}-\d{2}/;

/** Classifies what was typed; "61 9 * * *" is a (bad) cron, so its error is the cron rule's, not the model's guess. */
export function readWhen(raw: string): ReadWhen {
  const text = raw.trim();
  if (/^\d+$/.test(text)) return { kind: 'interval', spec: text };
  if (ISO_START.test(text)) return { kind: 'once', spec: text };
  const fields = text.split(/\s+/);
  if (fields.length >= 3 && /^[\d*]/.test(fields[0] ?? '') && fields.every((f) => CRON_FIELD.test(f)))
    return { kind: 'cron', spec: text };
  return { kind: 'words', words: text };
}

/** What the form shows in "when" for an existing schedule: exactly what readWhen reads back as the same spec. */
export function whenOf(row: Pick<ScheduleRow, 'kind' | 'spec' | 'timezone'>): string {
  if (row.kind !== 'once') return row.spec;
  const at = Date.parse(row.spec);
  return Number.isNaN(at) ? row.spec : isoInZone(at, row.timezone);
}
