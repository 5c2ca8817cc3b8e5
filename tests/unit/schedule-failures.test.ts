import { describe, expect, it } from 'vitest';
import type { ScheduleRow } from '../../src/db/schema.js';
import { failureChange, successChange } from '../../src/schedules/schedule-failures.js';

const row = (over: Partial<ScheduleRow> = {}): ScheduleRow => ({
  id: 1,
  platform: 'slack',
  workspace: 'T0FAKE01',
  channel: 'C0GENERAL',
  target: 'channel',
  conversationId: null,
  prompt: 'summarise',
  kind: 'interval',
  spec: '10',
  timezone: 'UTC',
  status: 'active',
  anchorAt: 0,
  nextRunAt: 600_000,
  lastRunAt: 0,
  runCount: 1,
  createdBy: 'U0ALICE01',
  creatorRoles: null,
  failReason: null,
  consecutiveFailures: 0,
  createdAt: 0,
  updatedAt: 0,
  ...over,
});

describe('how a schedule records failed runs', () => {
  it('a recurring schedule keeps firing after one or two failures in a row, counting them', () => {
    expect(failureChange(row(), 'gone')).toEqual({ consecutiveFailures: 1, failReason: 'gone' });
    expect(failureChange(row({ consecutiveFailures: 1 }), 'gone')).toEqual({
      consecutiveFailures: 2,
      failReason: 'gone',
    });
  });

  it('the third failure in a row pauses it, saying why', () => {
    expect(failureChange(row({ consecutiveFailures: 2 }), 'is_archived')).toEqual({
      consecutiveFailures: 3,
      status: 'paused',
      nextRunAt: null,
      failReason: 'Paused after 3 failed runs in a row. Last: is_archived',
    });
  });

  it('a one-off that fails is done, as error', () => {
    expect(failureChange(row({ kind: 'once', status: 'completed' }), 'gone')).toMatchObject({
      status: 'error',
      failReason: 'gone',
    });
  });

  it('a run that went through clears the count and the reason', () => {
    expect(successChange(row({ consecutiveFailures: 2, failReason: 'gone' }))).toEqual({
      consecutiveFailures: 0,
      failReason: null,
    });
    expect(successChange(row())).toBeNull();
  });
});
