import { afterEach, describe, expect, it } from 'vitest';
import { scheduleActionId } from '../../src/chat/action-id.js';
import type { InteractionRecord } from '../fakes/fake-discord.js';
import { startDiscordErrand, until, type DiscordErrand } from './discord-harness.js';

let e: DiscordErrand | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
});

const add = [{ type: 1, name: 'add', options: [] }];
const list = [{ type: 1, name: 'list', options: [] }];
const lastText = (r: InteractionRecord) => r.responses.at(-1)?.content ?? '';

describe('Schedules on Discord: buttons and modals, end to end', () => {
  it('/schedules add opens a modal whose submission creates a schedule in the channel', async () => {
    e = await startDiscordErrand();
    const d = e.discord;
    const command = d.slashCommand('schedules', d.general.id, add);
    await until(() => command.modal, 10_000);
    expect(command.callbacks[0]?.type).toBe(9);
    const submit = d.submitModal(
      command,
      { prompt: 'post the weekly digest', when: '0 9 * * 1', timezone: 'Europe/Paris' },
      d.general.id,
    );
    await until(() => lastText(submit).includes('Created schedule'), 10_000);
    const channel = { platform: 'discord', workspace: d.guildId, channel: d.general.id };
    const [row] = await e.app.schedules.list(channel);
    expect(row).toMatchObject({
      kind: 'cron',
      spec: '0 9 * * 1',
      timezone: 'Europe/Paris',
      prompt: 'post the weekly digest',
      status: 'active',
    });
    expect(submit.responses.at(-1)?.ephemeral).toBe(true);
  });

  it('an invalid submission is answered with the error and a button that reopens the form as submitted', async () => {
    e = await startDiscordErrand();
    const d = e.discord;
    const command = d.slashCommand('schedules', d.general.id, add);
    await until(() => command.modal, 10_000);
    const submit = d.submitModal(command, { prompt: 'tidy up', when: '61 9 * * *', timezone: 'UTC' }, d.general.id);
    await until(() => lastText(submit).includes('not saved'), 10_000);
    expect(lastText(submit)).toContain('Invalid cron "61 9 * * *"');
    const reopen = (JSON.stringify(submit.responses.at(-1)?.components).match(/errand:schedule-reopen:[a-f0-9]+/) ??
      [])[0]!;
    const click = d.clickInResponse(submit, reopen);
    await until(() => click.modal, 10_000);
    expect(JSON.stringify(click.modal)).toContain('61 9 * * *');
    expect(
      await e.app.schedules.list({ platform: 'discord', workspace: d.guildId, channel: d.general.id }),
    ).toHaveLength(0);
  });

  it('/schedules lists each schedule with buttons; Pause pauses it and Edit opens the form prefilled', async () => {
    e = await startDiscordErrand();
    const d = e.discord;
    const channel = { platform: 'discord', workspace: d.guildId, channel: d.general.id };
    const created = await e.app.schedules.create({
      channel,
      target: 'channel',
      conversationId: null,
      prompt: 'stand-up reminder',
      kind: 'interval',
      spec: '60',
      timezone: 'UTC',
      createdBy: d.alice.id,
    });
    if (!created.ok) throw new Error(created.error);
    const listed = d.slashCommand('schedules', d.general.id, list);
    await until(() => lastText(listed).includes('stand-up reminder'), 10_000);
    const buttons = JSON.stringify(listed.responses.at(-1)?.components);
    for (const op of ['pause', 'edit', 'delete'] as const)
      expect(buttons).toContain(scheduleActionId(op, created.schedule.id));

    const pause = d.clickInResponse(listed, scheduleActionId('pause', created.schedule.id));
    await until(() => lastText(pause).includes('Paused schedule'), 10_000);
    expect((await e.app.schedules.find(created.schedule.id))?.status).toBe('paused');

    const edit = d.clickInResponse(listed, scheduleActionId('edit', created.schedule.id));
    await until(() => edit.modal, 10_000);
    expect(JSON.stringify(edit.modal)).toContain('stand-up reminder');
    const saved = d.submitModal(edit, { when: '30' }, d.general.id);
    await until(() => lastText(saved).includes('Updated schedule'), 10_000);
    expect(await e.app.schedules.find(created.schedule.id)).toMatchObject({
      kind: 'interval',
      spec: '30',
      status: 'paused',
    });
  });
});
