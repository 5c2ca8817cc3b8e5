import { describe, expect, it } from 'vitest';
import { createAccessPolicy } from '../../src/access/access-policy.js';
import { createScheduleRights } from '../../src/schedules/schedule-rights.js';
import { createScheduleTools } from '../../src/schedules/agent/schedule-tools.js';
import type { AccessSettings } from '../../src/settings/team-settings.js';
import { createToolRegistry } from '../../src/agent/tools/tool-registry.js';
import type { ToolContext, ToolResult } from '../../src/agent/tools/tool.js';
import { CHANNEL, THREAD, THREAD_ID, scheduleWorld, settle } from './schedule-fixtures.js';

function setup(env: Record<string, string> = {}, access?: AccessSettings) {
  const w = scheduleWorld(env);
  void w.scheduler.start(w.launcher);
  const registry = createToolRegistry(createScheduleTools(w.service, createScheduleRights(createAccessPolicy(access))));
  const ctx: ToolContext = {
    conversationId: THREAD_ID,
    conversation: THREAD,
    runId: 'r1',
    taskId: null,
    userId: 'U1',
    principal: { platform: THREAD.platform, userId: 'U1' },
    timezone: 'Europe/Berlin',
    now: () => w.clock.now(),
  };
  const call = async (
    name: string,
    args: Record<string, unknown>,
    context: ToolContext = ctx,
  ): Promise<ToolResult & Record<string, unknown>> =>
    (await registry.execute({ id: 'c1', name, arguments: JSON.stringify(args) }, context)).result as ToolResult &
      Record<string, unknown>;
  return { w, call, ctx, registry };
}

const errorOf = (r: ToolResult) => (r.ok ? `unexpected success: ${JSON.stringify(r)}` : r.error);

describe('schedule_prompt', () => {
  it('confirms with id, a description and the next three fire times in the user timezone', async () => {
    const { call } = setup();
    const r = await call('schedule_prompt', { prompt: 'Summarise open tasks', kind: 'cron', spec: '0 9 * * 1-5' });
    expect(r).toMatchObject({
      ok: true,
      schedule: {
        id: 1,
        description: 'At 09:00, Monday through Friday (Europe/Berlin)',
        timezone: 'Europe/Berlin',
        target: 'channel',
        status: 'active',
        next_runs: [
          { local: 'Tue, 6 Jan 2026, 09:00 (Europe/Berlin)', iso: '2026-01-06T09:00:00+01:00' },
          { local: 'Wed, 7 Jan 2026, 09:00 (Europe/Berlin)', iso: '2026-01-07T09:00:00+01:00' },
          { local: 'Thu, 8 Jan 2026, 09:00 (Europe/Berlin)', iso: '2026-01-08T09:00:00+01:00' },
        ],
      },
    });
  });

  it('takes an explicit timezone, a numeric interval spec and a thread target', async () => {
    const { call, w } = setup();
    const r = await call('schedule_prompt', {
      prompt: 'Check the build',
      kind: 'interval',
      spec: 90,
      timezone: 'America/New_York',
      target: 'thread',
    });
    expect(r).toMatchObject({
      ok: true,
      schedule: { description: 'Every 90 minutes', target: 'thread', timezone: 'America/New_York' },
    });
    const next = (r.schedule as { next_runs: { iso: string }[] }).next_runs.map((n) => n.iso);
    expect(next).toEqual(['2026-01-05T05:30:00-05:00', '2026-01-05T07:00:00-05:00', '2026-01-05T08:30:00-05:00']);
    await w.clock.advanceSettled(90 * 60_000, () => w.scheduler.idle());
    await settle(w);
    expect(w.launcher.launches).toMatchObject([
      { via: 'thread', conversationId: THREAD_ID, prompt: 'Check the build' },
    ]);
  });

  it('returns every validation error as { ok: false, error } saying how to fix it', async () => {
    const { call } = setup({ MAX_SCHEDULES_PER_CHANNEL: '2' });
    expect(errorOf(await call('schedule_prompt', { prompt: 'x', kind: 'cron', spec: '0 25 * * *' }))).toMatch(
      /Invalid cron "0 25 \* \* \*".*5 fields/,
    );
    expect(
      errorOf(
        await call('schedule_prompt', { prompt: 'x', kind: 'cron', spec: '0 9 * * *', timezone: 'Europe/Atlantis' }),
      ),
    ).toMatch(/Unknown timezone "Europe\/Atlantis"/);
    expect(errorOf(await call('schedule_prompt', { prompt: 'x', kind: 'once', spec: '2026-01-01T09:00' }))).toMatch(
      /is in the past/,
    );
    expect(errorOf(await call('schedule_prompt', { prompt: 'x', kind: 'interval', spec: '3' }))).toMatch(
      /minimum is 5 minutes/,
    );
    expect(errorOf(await call('schedule_prompt', { prompt: 'x', kind: 'weekly', spec: '1' }))).toMatch(
      /kind must be "once", "cron" or "interval"/,
    );
    expect(errorOf(await call('schedule_prompt', { prompt: '  ', kind: 'interval', spec: '30' }))).toMatch(
      /prompt must say what to do/,
    );
    expect((await call('schedule_prompt', { prompt: 'a', kind: 'interval', spec: '30' })).ok).toBe(true);
    expect((await call('schedule_prompt', { prompt: 'b', kind: 'interval', spec: '30' })).ok).toBe(true);
    expect(errorOf(await call('schedule_prompt', { prompt: 'c', kind: 'interval', spec: '30' }))).toMatch(
      /already has 2 active schedules \(the maximum is 2\)\. Pause or delete one first/,
    );
  });
});

describe('managing schedules through tools', () => {
  async function two(call: ReturnType<typeof setup>['call']) {
    await call('schedule_prompt', { prompt: 'daily digest', kind: 'cron', spec: '30 8 * * *' });
    await call('schedule_prompt', { prompt: 'ping', kind: 'interval', spec: '60' });
  }

  it('lists only this channel’s schedules', async () => {
    const { call, ctx } = setup();
    await two(call);
    const elsewhere = { ...ctx, conversation: { ...THREAD, channel: 'C9' }, conversationId: 'memory:W1:C9:-' };
    await call('schedule_prompt', { prompt: 'other', kind: 'interval', spec: '60' }, elsewhere);
    const r = await call('list_schedules', {});
    expect((r.schedules as { prompt: string }[]).map((s) => s.prompt)).toEqual(['daily digest', 'ping']);
  });

  it('pauses, resumes and deletes by schedule_id (number or "#id")', async () => {
    const { call, w } = setup();
    await two(call);
    expect(await call('pause_schedule', { schedule_id: 2 })).toMatchObject({
      ok: true,
      schedule: { id: 2, status: 'paused', next_runs: [] },
    });
    expect(w.scheduler.armedCount).toBe(1);
    expect(await call('resume_schedule', { schedule_id: '#2' })).toMatchObject({
      ok: true,
      schedule: { id: 2, status: 'active' },
    });
    expect(w.scheduler.armedCount).toBe(2);
    expect(await call('delete_schedule', { schedule_id: 1 })).toMatchObject({
      ok: true,
      deleted: 1,
      description: 'At 08:30 (Europe/Berlin)',
    });
    expect(errorOf(await call('delete_schedule', { schedule_id: 1 }))).toMatch(/no schedule #1 in this channel/);
    expect(errorOf(await call('pause_schedule', { schedule_id: 'two' }))).toMatch(/schedule_id/);
    expect((await w.service.list(CHANNEL)).map((s) => s.id)).toEqual([2]);
  });

  it('publishes the argument names of DESIGN.md to the model', () => {
    const { registry, ctx } = setup();
    const props = Object.fromEntries(
      registry
        .specsFor(ctx)
        .map((s) => [s.name, Object.keys((s.parameters as { properties?: object }).properties ?? {})]),
    );
    expect(props).toEqual({
      schedule_prompt: ['prompt', 'kind', 'spec', 'timezone', 'target'],
      list_schedules: [],
      pause_schedule: ['schedule_id'],
      resume_schedule: ['schedule_id'],
      delete_schedule: ['schedule_id'],
    });
  });

  it('offers a scheduled run no way to create schedules, so a prompt cannot multiply itself', async () => {
    const { registry, ctx, call } = setup();
    const scheduled = { ...ctx, scheduled: true };
    expect(registry.specsFor(scheduled).map((s) => s.name)).not.toContain('schedule_prompt');
    expect(registry.specsFor(scheduled).map((s) => s.name)).toContain('list_schedules');
    const result = await call('schedule_prompt', { prompt: 'again', kind: 'interval', spec: '60' }, scheduled);
    expect(result).toMatchObject({ ok: false });
    expect(String(result.ok === false ? result.error : '')).toMatch(/"schedule_prompt" is not available in this run/);
  });
});
