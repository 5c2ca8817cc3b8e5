/** How the console writes times, durations, numbers and money: plain, the same on every page. */

const pad = (n: number) => String(n).padStart(2, '0');

/** `2026-03-09 14:05:12 UTC` (every process and every reader sees the same clock). */
export function formatTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || ms <= 0) return '—';
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} UTC`;
}

/** The ISO form for `<time datetime>`. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** `3 s`, `4 min 10 s`, `2 h 5 min`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** Dollars: cents from a cent on, four decimals below it (a small model's run costs fractions of a cent). */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  return usd >= 0.01 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}

/** A long text cut to `max` characters with an ellipsis. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Pretty-printed JSON when the text is JSON, else the text as it is. */
export function prettyJson(text: string | null): string {
  if (text === null) return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
