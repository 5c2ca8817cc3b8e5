import { createRequire } from 'node:module';
import type { CronExpressionParser } from 'cron-parser';
import type cronstrue from 'cronstrue';
import type { ScheduleRow } from '../db/schema.js';
import { canonicalTimezone, formatInZone, instantOfWallTime } from './zoned-time.js';

/**
 * Pure timing rules for schedules: validating a spec and computing fire times. No clock and
 * no timers here, so every rule (DST, drift, coalescing) is tested as plain arithmetic.
 */
export type ScheduleKind = ScheduleRow['kind'];

/** What the timing of a schedule depends on (a subset of its row). */
export type ScheduleTiming = Pick<ScheduleRow, 'kind' | 'spec' | 'timezone' | 'anchorAt'>;

export interface TimingLimits {
  readonly minIntervalMinutes: number;
}

/** A spec that passed validation: normalised spec, canonical timezone and the first fire time. */
export type ParsedSpec =
  { ok: true; spec: string; timezone: string; firstRunAt: number } | { ok: false; error: string };

const MINUTE = 60_000;
const MAX_INTERVAL_MINUTES = 366 * 24 * 60;
const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Validates `spec` for `kind` at time `now` and computes the first run. Errors say what was
 * wrong and how to fix it, because they go back to the model (or a person) verbatim.
 */
export function parseScheduleSpec(
  kind: ScheduleKind,
  rawSpec: string,
  rawTimezone: string,
  now: number,
  limits: TimingLimits,
): ParsedSpec {
  const timezone = canonicalTimezone(rawTimezone);
  if (timezone === null)
    return {
      ok: false,
      error: `Unknown timezone "${rawTimezone}". Use an IANA name such as Europe/Berlin, America/New_York or UTC.`,
    };
  const spec = rawSpec.trim();
  if (kind === 'once') return parseOnce(spec, timezone, now);
  if (kind === 'interval') return parseInterval(spec, timezone, now, limits);
  return parseCron(spec, timezone, now, limits);
}

function parseOnce(spec: string, timezone: string, now: number): ParsedSpec {
  const m = ISO.exec(spec);
  if (!m)
    return {
      ok: false,
      error: `"${spec}" is not an ISO 8601 date-time. Use e.g. 2026-03-09T09:00 (read in the timezone) or 2026-03-09T09:00:00+01:00.`,
    };
  let at: number | null;
  if (m[7]) {
    at = Date.parse(spec.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
    if (Number.isNaN(at)) at = null;
  } else {
    const [year, month, day, hour, minute, second] = m.slice(1, 7).map((v) => Number(v ?? 0)) as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    at =
      hour > 23 || minute > 59 || second > 59
        ? null
        : instantOfWallTime({ year, month, day, hour, minute, second }, timezone);
  }
  if (at === null) return { ok: false, error: `"${spec}" is not a real date and time. Check the month, day and hour.` };
  if (at <= now)
    return {
      ok: false,
      error: `${formatInZone(at, timezone)} is in the past (now it is ${formatInZone(now, timezone)}). Give a future time.`,
    };
  return { ok: true, spec: new Date(at).toISOString(), timezone, firstRunAt: at };
}

function parseInterval(spec: string, timezone: string, now: number, limits: TimingLimits): ParsedSpec {
  if (!/^\d+$/.test(spec))
    return { ok: false, error: `Interval "${spec}" must be a whole number of minutes, e.g. 30 or 120.` };
  const minutes = Number(spec);
  if (minutes < limits.minIntervalMinutes) {
    return {
      ok: false,
      error: `An interval of ${minutes} minute${minutes === 1 ? '' : 's'} is too short: the minimum is ${limits.minIntervalMinutes} minutes. Use ${limits.minIntervalMinutes} or more.`,
    };
  }
  if (minutes > MAX_INTERVAL_MINUTES)
    return {
      ok: false,
      error: `An interval of ${minutes} minutes is longer than a year. Use a cron or once schedule instead.`,
    };
  return { ok: true, spec: String(minutes), timezone, firstRunAt: now + minutes * MINUTE };
}

function parseCron(spec: string, timezone: string, now: number, limits: TimingLimits): ParsedSpec {
  const fields = spec.split(/\s+/);
  if (fields.length !== 5) {
    return {
      ok: false,
      error: `Cron "${spec}" has ${fields.length} field${fields.length === 1 ? '' : 's'}; use 5: minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5" for weekdays at 09:00.`,
    };
  }
  const normalised = fields.join(' ');
  let runs: number[];
  try {
    runs = cronRuns(normalised, timezone, now, 12);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      error: `Invalid cron "${spec}": ${reason}. Use 5 fields (minute hour day-of-month month day-of-week), e.g. "0 9 * * 1-5".`,
    };
  }
  if (runs.length === 0) return { ok: false, error: `Cron "${spec}" never fires. Check the day and month fields.` };
  for (let i = 1; i < runs.length; i++) {
    if (runs[i]! - runs[i - 1]! < limits.minIntervalMinutes * MINUTE) {
      return {
        ok: false,
        error: `Cron "${spec}" fires more often than every ${limits.minIntervalMinutes} minutes (the minimum). Make it less frequent, e.g. "*/${limits.minIntervalMinutes} * * * *".`,
      };
    }
  }
  return { ok: true, spec: normalised, timezone, firstRunAt: runs[0]! };
}

const requireLazily = createRequire(import.meta.url);
let cronParser: typeof CronExpressionParser | null = null;
let cronDescriber: typeof cronstrue | null = null;
/**
 * cron-parser (with luxon) and cronstrue (with every locale) cost several MB of memory each, and a
 * bot without cron schedules never needs them: both are loaded the first time a cron spec is read.
 */
function parser(): typeof CronExpressionParser {
  return (cronParser ??= (requireLazily('cron-parser') as { CronExpressionParser: typeof CronExpressionParser })
    .CronExpressionParser);
}
function describer(): typeof cronstrue {
  return (cronDescriber ??= requireLazily('cronstrue') as typeof cronstrue);
}

function cronRuns(expr: string, timezone: string, after: number, count: number): number[] {
  const it = parser().parse(expr, { tz: timezone, currentDate: new Date(after) });
  const out: number[] = [];
  try {
    while (out.length < count) out.push(it.next().getTime());
  } catch (err) {
    if (out.length === 0) throw err;
  }
  return out;
}

/** The first fire time strictly after `after`, or null when there is none (a past `once`, a bad row). */
export function nextRunAfter(t: ScheduleTiming, after: number): number | null {
  return nextRuns(t, after, 1)[0] ?? null;
}

/**
 * The next `count` fire times strictly after `after`. Intervals are `anchorAt + k·interval`,
 * so however late a fire is handled, the series never drifts.
 */
export function nextRuns(t: ScheduleTiming, after: number, count: number): number[] {
  if (t.kind === 'once') {
    const at = Date.parse(t.spec);
    return !Number.isNaN(at) && at > after && count > 0 ? [at] : [];
  }
  if (t.kind === 'interval') {
    const step = Number(t.spec) * MINUTE;
    if (!Number.isInteger(step) || step <= 0) return [];
    const k = Math.max(1, Math.floor((after - t.anchorAt) / step) + 1);
    return Array.from({ length: count }, (_, i) => t.anchorAt + (k + i) * step);
  }
  const key = `${t.spec}|${t.timezone}|${after}|${count}`;
  let runs = cronCache.get(key);
  if (!runs) {
    try {
      runs = cronRuns(t.spec, t.timezone, after, count);
    } catch {
      runs = [];
    }
    if (cronCache.size >= CRON_CACHE_SIZE) cronCache.delete(cronCache.keys().next().value!);
    cronCache.set(key, runs);
  }
  return [...runs];
}

/**
 * Evaluating cron in a timezone costs ~0.5 ms; schedules sharing a spec fire at the same
 * instant (everyone's "0 9 * * 1-5") and ask the same question, so recent answers are kept.
 */
const cronCache = new Map<string, number[]>();
const CRON_CACHE_SIZE = 512;

/** A sentence for people: "At 09:00, Monday through Friday (Europe/Berlin)". */
export function describeTiming(t: ScheduleTiming): string {
  if (t.kind === 'once') {
    const at = Date.parse(t.spec);
    return Number.isNaN(at) ? `Once at ${t.spec}` : `Once, ${formatInZone(at, t.timezone)}`;
  }
  if (t.kind === 'interval') {
    const minutes = Number(t.spec);
    if (minutes % 1440 === 0) return minutes === 1440 ? 'Every day (every 24 hours)' : `Every ${minutes / 1440} days`;
    if (minutes % 60 === 0) return minutes === 60 ? 'Every hour' : `Every ${minutes / 60} hours`;
    return `Every ${minutes} minutes`;
  }
  try {
    return `${describer().toString(t.spec, { use24HourTimeFormat: true, throwExceptionOnParseError: true })} (${t.timezone})`;
  } catch {
    return `Cron "${t.spec}" (${t.timezone})`;
  }
}
