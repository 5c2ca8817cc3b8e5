import { describe, expect, it } from 'vitest';
import { SCHEDULES_HELP, handleSchedulesCommand } from '../../src/schedules/commands/schedules-command.js';
import { CHANNEL, MINUTE, THREAD_ID, scheduleWorld, settle } from './schedule-fixtures.js';

function setup() {
  const w = scheduleWorld();
  void w.scheduler.start(w.launcher);
  const add = async (
    prompt: string,
    kind: 'once' | 'cron' | 'interval',
    spec: string,
    target: 'channel' | 'thread' = 'channel',
  ) => {
    const r = await w.service.create({
      channel: CHANNEL,
      target,
      conversationId: THREAD_ID,
      prompt,
      kind,
      spec,
      timezone: 'Europe/Berlin',
      createdBy: 'U1',
    });
    if (!r.ok) throw new Error(r.error);
    return r.schedule.id;
  };
  const run = async (args: string) => (await handleSchedulesCommand(args, CHANNEL, w.service)).text;
  return { w, add, run };
}

describe('/schedules', () => {
  it('says how to create one when the channel has none', async () => {
    const { run } = setup();
    expect(await run('')).toMatch(/No schedules in this channel\. Ask me/);
  });

  it('lists id, description, next run, status and target of each schedule in this channel', async () => {
    const { run, add, w } = setup();
    await add('Summarise open tasks', 'cron', '0 9 * * 1-5');
    await add('Ping the thread', 'interval', '30', 'thread');
    await w.service.create({
      channel: { ...CHANNEL, channel: 'C2' },
      target: 'channel',
      conversationId: null,
      prompt: 'elsewhere',
      kind: 'interval',
      spec: '30',
      timezone: 'UTC',
      createdBy: 'U1',
    });
    expect(await run('')).toBe(
      [
        '**Schedules in this channel**',
        '▶️ #1 At 09:00, Monday through Friday (Europe/Berlin) — next: Tue, 6 Jan 2026, 09:00 (Europe/Berlin) · active\n    "Summarise open tasks"',
        '▶️ #2 Every 30 minutes — next: Mon, 5 Jan 2026, 10:30 (Europe/Berlin) · active · in its thread\n    "Ping the thread"',
      ].join('\n'),
    );
  });

  it('pauses, resumes and deletes by id, and shows paused, completed and failed ones', async () => {
    const { run, add, w } = setup();
    const cron = await add('digest', 'cron', '0 9 * * *');
    const once = await add('remind', 'once', '2026-01-05T10:05');
    expect(await run(`pause ${cron}`)).toBe(
      `Paused schedule #${cron} (At 09:00 (Europe/Berlin)). Resume it with \`/schedules resume ${cron}\`.`,
    );
    w.launcher.failWith = 'no access to channel';
    await w.clock.advanceSettled(5 * MINUTE, () => w.scheduler.idle());
    await settle(w);
    const list = await run('list');
    expect(list).toContain(`⏸️ #${cron} At 09:00 (Europe/Berlin) — paused`);
    expect(list).toContain(`⚠️ #${once} Once, Mon, 5 Jan 2026, 10:05 (Europe/Berlin) — error`);
    expect(list).toMatch(/⚠️ The run at .* could not start: no access to channel/);
    expect(await run(`resume #${cron}`)).toMatch(
      new RegExp(`^Resumed schedule #${cron}: ▶️ #${cron} At 09:00 .* next: Tue, 6 Jan 2026, 09:00`),
    );
    expect(await run(`DELETE ${cron}`)).toBe(`Deleted schedule #${cron} (At 09:00 (Europe/Berlin)).`);
    expect(w.scheduler.armedCount).toBe(0);
  });

  it('answers unknown ids, missing ids and unknown subcommands helpfully', async () => {
    const { run } = setup();
    expect(await run('pause 42')).toBe(
      'There is no schedule #42 in this channel. /schedules (or the list_schedules tool) shows the ids.',
    );
    expect(await run('resume')).toBe(
      'Which one? Add the schedule id: `/schedules resume <id>` (see `/schedules` for ids).',
    );
    expect(await run('snooze 3')).toMatch(
      /^I don't understand "snooze 3"\. Use `\/schedules` to list .*`\/schedules delete <id>`\.$/,
    );
    expect(await run('pause three')).toMatch(/I don't understand "pause three"/);
  });

  it('offers a help snippet for /help', () => {
    expect(SCHEDULES_HELP).toMatch(/`\/schedules`.*`\/schedules pause\|resume\|delete <id>`/);
  });
});

describe('/schedules over time', () => {
  it('keeps only the five latest completed one-offs in the list', async () => {
    const { run, add, w } = setup();
    for (let i = 0; i < 8; i++) await add(`one-off ${i}`, 'once', `2026-01-05T10:${String(10 + i).padStart(2, '0')}`);
    await w.clock.advanceSettled(60 * MINUTE, () => w.scheduler.idle());
    await settle(w);
    const text = await run('');
    expect(text.match(/✅/g)).toHaveLength(5);
    expect(text).toContain('"one-off 7"');
    expect(text).not.toContain('"one-off 2"');
  });
});
