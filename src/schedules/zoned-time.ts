/**
 * Wall-clock maths in IANA timezones with nothing but Intl: schedules are stored as UTC
 * instants but people speak in local times, so both directions are needed — and must be
 * right on the days the clocks change.
 */

const partFormatters = new Map<string, Intl.DateTimeFormat>();
const displayFormatters = new Map<string, Intl.DateTimeFormat>();

function partsFormatter(timezone: string): Intl.DateTimeFormat {
  let f = partFormatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    partFormatters.set(timezone, f);
  }
  return f;
}

/** The canonical name of an IANA timezone, or null when it is not one. */
export function canonicalTimezone(name: string): string | null {
  const trimmed = name.trim();
  if (trimmed === '' || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(trimmed)) return null;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: trimmed }).resolvedOptions().timeZone;
    return resolved.toLowerCase() === trimmed.toLowerCase() ? resolved : trimmed;
  } catch {
    return null;
  }
}

/** Local calendar fields of an instant in a timezone. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The wall-clock reading of `at` in `timezone`. */
export function wallTimeAt(at: number, timezone: string): WallTime {
  const fields: Record<string, number> = {};
  for (const p of partsFormatter(timezone).formatToParts(at))
    if (p.type !== 'literal') fields[p.type] = Number(p.value);
  return {
    year: fields.year ?? 0,
    month: fields.month ?? 0,
    day: fields.day ?? 0,
    hour: fields.hour ?? 0,
    minute: fields.minute ?? 0,
    second: fields.second ?? 0,
  };
}

/** UTC offset of `timezone` at instant `at`, in ms (east of Greenwich is positive). */
export function offsetAt(at: number, timezone: string): number {
  const w = wallTimeAt(at, timezone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - (at - (((at % 1000) + 1000) % 1000));
}

/**
 * The instant a wall-clock time happens in `timezone`, resolving DST like Temporal's
 * "compatible": a time that occurs twice takes the first, a time skipped by a spring-forward
 * gap moves forward by the gap (02:30 → 03:30). Null when the fields are not a real date.
 */
export function instantOfWallTime(w: WallTime, timezone: string, ms = 0): number | null {
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, ms);
  const check = new Date(asUtc);
  if (
    check.getUTCFullYear() !== w.year ||
    check.getUTCMonth() !== w.month - 1 ||
    check.getUTCDate() !== w.day ||
    check.getUTCHours() !== w.hour
  )
    return null;
  const day = 86_400_000;
  const before = offsetAt(asUtc - day, timezone);
  const after = offsetAt(asUtc + day, timezone);
  const candidates = [...new Set([before, after])]
    .map((o) => asUtc - o)
    .filter((t) => offsetAt(t, timezone) === asUtc - t)
    .sort((a, b) => a - b);
  return candidates[0] ?? asUtc - before;
}

function pad(n: number, width = 2): string {
  return String(Math.abs(n)).padStart(width, '0');
}

/** ISO 8601 with the local offset, e.g. `2026-03-09T09:00:00-04:00`: exact and readable for the model. */
export function isoInZone(at: number, timezone: string): string {
  const w = wallTimeAt(at, timezone);
  const offMin = Math.round(offsetAt(at, timezone) / 60_000);
  const sign = offMin < 0 ? '-' : '+';
  return `${w.year}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}${sign}${pad(Math.trunc(offMin / 60))}:${pad(offMin % 60)}`;
}

/** A person-friendly time, e.g. `Mon, 9 Mar 2026, 09:00 (America/New_York)`. */
export function formatInZone(at: number, timezone: string): string {
  let f = displayFormatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone: timezone,
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    displayFormatters.set(timezone, f);
  }
  return `${f.format(at)} (${timezone})`;
}
