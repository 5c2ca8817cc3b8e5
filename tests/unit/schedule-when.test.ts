import { describe, expect, it } from 'vitest';
import { parseScheduleActionId, scheduleActionId } from '../../src/chat/action-id.js';
import { readWhen, whenOf } from '../../src/schedules/schedule-when.js';

describe('the form\'s "when" field', () => {
  it('reads cron expressions, minutes and date-times as they are, and anything else as plain words', () => {
    expect(readWhen('0 9 * * 1-5')).toEqual({ kind: 'cron', spec: '0 9 * * 1-5' });
    expect(readWhen('*/15 * * * MON-FRI')).toEqual({ kind: 'cron', spec: '*/15 * * * MON-FRI' });
    expect(readWhen(' 90 ')).toEqual({ kind: 'interval', spec: '90' });
    expect(readWhen('2026-03-09T09:00')).toEqual({ kind: 'once', spec: '2026-03-09T09:00' });
    expect(readWhen('every weekday at nine')).toEqual({ kind: 'words', words: 'every weekday at nine' });
    expect(readWhen('in two hours')).toEqual({ kind: 'words', words: 'in two hours' });
  });

  it('keeps a malformed cron a cron, so its error is the cron rule and not a guess', () => {
    expect(readWhen('61 9 * * *')).toEqual({ kind: 'cron', spec: '61 9 * * *' });
    expect(readWhen('0 0 9 * * *')).toEqual({ kind: 'cron', spec: '0 0 9 * * *' });
  });

  it('prefills an existing schedule with what reads back as the same spec', () => {
    expect(whenOf({ kind: 'cron', spec: '0 9 * * 1-5', timezone: 'UTC' })).toBe('0 9 * * 1-5');
    expect(whenOf({ kind: 'interval', spec: '30', timezone: 'UTC' })).toBe('30');
    const once = whenOf({ kind: 'once', spec: '2026-03-09T08:00:00.000Z', timezone: 'Europe/Berlin' });
    expect(once).toBe('2026-03-09T09:00:00+01:00');
    expect(readWhen(once).kind).toBe('once');
  });
});

describe('schedule action ids', () => {
  it('round-trip every operation and reject foreign or malformed ones', () => {
    for (const op of ['pause', 'resume', 'delete', 'edit'] as const)
      expect(parseScheduleActionId(scheduleActionId(op, 42))).toEqual({ op, scheduleId: 42 });
    expect(parseScheduleActionId(scheduleActionId('new'))).toEqual({ op: 'new', scheduleId: null });
    for (const bad of [
      'errand:schedule:pause:',
      'errand:schedule:run:3',
      'errand:schedule:pause:x',
      'errand:stop:r1',
      'other:schedule:new',
    ])
      expect(parseScheduleActionId(bad)).toBeNull();
  });
});
