const DAY_MS = 86_400_000;

/** The UTC day of a moment as `YYYY-MM-DD`: daily budgets and usage rows are keyed by it, the same for everyone. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The UTC day `days` before the one of `ms` (`days` = 29 gives the first day of a 30-day window ending today). */
export function utcDayBefore(ms: number, days: number): string {
  return utcDay(ms - days * DAY_MS);
}

/** Milliseconds until the next 00:00 UTC, when daily budgets reset. */
export function msUntilUtcMidnight(ms: number): number {
  return DAY_MS - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
}

/** "00:00 UTC, in 3 h 12 min": when daily budgets reset, in words a person reads at a glance. */
export function describeReset(msLeft: number): string {
  const minutes = Math.max(1, Math.ceil(msLeft / 60_000));
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  const parts = [h > 0 ? `${h} h` : '', m > 0 ? `${m} min` : ''].filter((p) => p !== '');
  return `00:00 UTC, in ${parts.join(' ')}`;
}
