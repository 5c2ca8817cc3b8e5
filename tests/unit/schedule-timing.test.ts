import { describe, expect, it } from 'vitest';
import {
  describeTiming,
  nextRunAfter,
  nextRuns,
  parseScheduleSpec,
  type ScheduleTiming,
} from '../../src/schedules/schedule-timing.js';
import { formatInZone, instantOfWallTime, isoInZone } from '../../src/schedules/zoned-time.js';

const limits = { minIntervalMinutes: 5 };
const NOW = Date.parse('2026-01-05T09:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

function cron(spec: string, timezone: string): ScheduleTiming {
  return { kind: 'cron', spec, timezone, anchorAt: 0 };
}

describe('once', () => {
  it('reads a time without offset in the schedule timezone', () => {
    const r = parseScheduleSpec('once', '2026-03-09T09:00', 'America/New_York', NOW, limits);
    expect(r).toMatchObject({
      ok: true,
      spec: '2026-03-09T13:00:00.000Z',
      firstRunAt: Date.parse('2026-03-09T13:00:00Z'),
    });
  });

  it('honours an explicit offset or Z', () => {
    expect(parseScheduleSpec('once', '2026-01-05T10:30:00+01:00', 'America/New_York', NOW, limits)).toMatchObject({
      ok: true,
      firstRunAt: Date.parse('2026-01-05T09:30:00Z'),
    });
    expect(parseScheduleSpec('once', '2026-01-05T10:30:00Z', 'UTC', NOW, limits)).toMatchObject({
      ok: true,
      firstRunAt: Date.parse('2026-01-05T10:30:00Z'),
    });
  });

  it('fires once and never again', () => {
    const t: ScheduleTiming = { kind: 'once', spec: '2026-01-05T10:00:00.000Z', timezone: 'UTC', anchorAt: NOW };
    expect(nextRuns(t, NOW, 3)).toEqual([Date.parse('2026-01-05T10:00:00Z')]);
    expect(nextRunAfter(t, Date.parse('2026-01-05T10:00:00Z'))).toBeNull();
  });

  it('rejects a past time, saying what time it is now', () => {
    const r = parseScheduleSpec('once', '2026-01-05T08:59', 'UTC', NOW, limits);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/in the past.*Give a future time/);
  });

  it('rejects text that is not ISO 8601 and dates that do not exist', () => {
    const a = parseScheduleSpec('once', 'tomorrow at 9', 'UTC', NOW, limits);
    expect(a.ok === false && a.error).toMatch(/not an ISO 8601 date-time/);
    const b = parseScheduleSpec('once', '2026-02-30T09:00', 'UTC', NOW, limits);
    expect(b.ok === false && b.error).toMatch(/not a real date/);
  });

  it('moves a wall time inside a spring-forward gap forward and takes the first of a repeated hour', () => {
    expect(
      iso(instantOfWallTime({ year: 2026, month: 3, day: 8, hour: 2, minute: 30, second: 0 }, 'America/New_York')!),
    ).toBe('2026-03-08T07:30:00.000Z');
    expect(
      iso(instantOfWallTime({ year: 2026, month: 11, day: 1, hour: 1, minute: 30, second: 0 }, 'America/New_York')!),
    ).toBe('2026-11-01T05:30:00.000Z');
  });
});

describe('interval', () => {
  it('first fires one interval after the anchor and stays on the anchor grid', () => {
    const r = parseScheduleSpec('interval', '30', 'UTC', NOW, limits);
    expect(r).toMatchObject({ ok: true, spec: '30', firstRunAt: NOW + 30 * 60_000 });
    const t: ScheduleTiming = { kind: 'interval', spec: '30', timezone: 'UTC', anchorAt: NOW };
    expect(nextRunAfter(t, NOW + 30 * 60_000 + 4_321)).toBe(NOW + 60 * 60_000);
    expect(nextRuns(t, NOW, 3)).toEqual([1, 2, 3].map((k) => NOW + k * 30 * 60_000));
  });

  it('rejects intervals under the minimum and non-numbers', () => {
    const a = parseScheduleSpec('interval', '2', 'UTC', NOW, limits);
    expect(a.ok === false && a.error).toMatch(/too short: the minimum is 5 minutes/);
    const b = parseScheduleSpec('interval', '1h', 'UTC', NOW, limits);
    expect(b.ok === false && b.error).toMatch(/whole number of minutes/);
  });
});

describe('cron', () => {
  it('evaluates in the schedule timezone across the March change in New York', () => {
    const runs = nextRuns(cron('0 9 * * *', 'America/New_York'), Date.parse('2026-03-06T12:00:00Z'), 4).map(iso);
    expect(runs).toEqual([
      '2026-03-06T14:00:00.000Z',
      '2026-03-07T14:00:00.000Z',
      '2026-03-08T13:00:00.000Z',
      '2026-03-09T13:00:00.000Z',
    ]);
  });

  it('fires once (not twice) in the repeated hour of the November change in New York', () => {
    const runs = nextRuns(cron('30 1 * * *', 'America/New_York'), Date.parse('2026-10-31T12:00:00Z'), 3).map(iso);
    expect(runs).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z', '2026-11-03T06:30:00.000Z']);
  });

  it('keeps 09:00 local on weekdays across the Berlin spring change', () => {
    const runs = nextRuns(cron('0 9 * * 1-5', 'Europe/Berlin'), Date.parse('2026-03-26T12:00:00Z'), 3).map(iso);
    expect(runs).toEqual(['2026-03-27T08:00:00.000Z', '2026-03-30T07:00:00.000Z', '2026-03-31T07:00:00.000Z']);
  });

  it('rejects malformed expressions, wrong field counts and too-frequent ones', () => {
    for (const [spec, message] of [
      ['61 * * * *', /Invalid cron "61 \* \* \* \*"/],
      ['* * *', /has 3 fields; use 5/],
      ['0 0 9 * * *', /has 6 fields/],
      ['* * * * *', /more often than every 5 minutes/],
      ['0 9 31 2 *', /Invalid cron|never fires/],
    ] as const) {
      const r = parseScheduleSpec('cron', spec, 'UTC', NOW, limits);
      expect(r.ok === false && r.error, spec).toMatch(message);
    }
  });

  it('describes itself for people, with the timezone', () => {
    expect(describeTiming(cron('0 9 * * 1-5', 'Europe/Berlin'))).toBe(
      'At 09:00, Monday through Friday (Europe/Berlin)',
    );
    expect(describeTiming({ kind: 'interval', spec: '120', timezone: 'UTC', anchorAt: 0 })).toBe('Every 2 hours');
    expect(
      describeTiming({ kind: 'once', spec: '2026-03-09T13:00:00.000Z', timezone: 'America/New_York', anchorAt: 0 }),
    ).toBe('Once, Mon, 9 Mar 2026, 09:00 (America/New_York)');
  });
});

describe('timezones', () => {
  it('rejects unknown timezones with a hint and canonicalises known ones', () => {
    const r = parseScheduleSpec('cron', '0 9 * * *', 'Mars/Olympus', NOW, limits);
    expect(r.ok === false && r.error).toMatch(/Unknown timezone "Mars\/Olympus".*IANA/);
    expect(parseScheduleSpec('cron', '0 9 * * *', 'europe/berlin', NOW, limits)).toMatchObject({
      ok: true,
      timezone: 'Europe/Berlin',
    });
  });

  it('formats times with their local offset', () => {
    const at = Date.parse('2026-03-09T13:00:00Z');
    expect(isoInZone(at, 'America/New_York')).toBe('2026-03-09T09:00:00-04:00');
    expect(isoInZone(at, 'Asia/Kolkata')).toBe('2026-03-09T18:30:00+05:30');
    expect(formatInZone(at, 'Europe/Berlin')).toBe('Mon, 9 Mar 2026, 14:00 (Europe/Berlin)');
  });
});
