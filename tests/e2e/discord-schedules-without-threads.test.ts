import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../fakes/wait-for.js';
import { startDiscordErrand, until, type DiscordErrand } from './discord-harness.js';

let e: DiscordErrand | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
});

const texts = (e: DiscordErrand, channelId: string) => e.discord.botMessagesIn(channelId).map((m) => m.content);

/** The model schedules "summarise the day" in an hour, confirms, and later answers the scheduled run. */
function scriptScheduleInAnHour(e: DiscordErrand): void {
  const at = new Date(e.clock.now() + 60 * 60_000).toISOString();
  e.model.reply(
    {
      toolCalls: [
        {
          name: 'schedule_prompt',
          arguments: { prompt: 'summarise the day', kind: 'once', spec: at, timezone: 'UTC' },
        },
      ],
    },
    { text: 'Scheduled for in an hour.' },
    { text: 'Here is the summary.' },
  );
}

describe('Discord: channel schedules where no thread can be opened', () => {
  it('a channel schedule made in a DM posts its header in the DM and runs the prompt there', async () => {
    e = await startDiscordErrand();
    const { discord: d, clock, app } = e;
    scriptScheduleInAnHour(e);
    const dm = d.directMessage('in an hour, summarise the day');
    await waitFor(() => texts(e!, dm.channel_id).includes('Scheduled for in an hour.'));
    await app.coordinator.idle();
    clock.advance(60 * 60_000 + 1000);
    await until(() =>
      texts(e!, dm.channel_id).find((t) => t.includes('Scheduled prompt') && t.includes('summarise the day')),
    );
    await waitFor(() => texts(e!, dm.channel_id).includes('Here is the summary.'));
    const [schedule] = await app.schedules.list({ platform: 'discord', workspace: '@me', channel: dm.channel_id });
    expect(schedule).toMatchObject({ status: 'completed', failReason: null });
    expect(d.callsTo('POST', /\/threads$/)).toEqual([]);
  });

  it('with DISCORD_THREADS=false a channel schedule runs in the channel itself, after its header', async () => {
    e = await startDiscordErrand({ DISCORD_THREADS: 'false' });
    const { discord: d, clock, app } = e;
    scriptScheduleInAnHour(e);
    d.userMessage(d.general.id, `<@${d.bot.id}> in an hour, summarise the day`);
    await waitFor(() => texts(e!, d.general.id).includes('Scheduled for in an hour.'));
    await app.coordinator.idle();
    clock.advance(60 * 60_000 + 1000);
    await waitFor(() => texts(e!, d.general.id).includes('Here is the summary.'));
    const said = texts(e!, d.general.id);
    expect(said.findIndex((t) => t.includes('Scheduled prompt'))).toBeLessThan(said.indexOf('Here is the summary.'));
    expect(d.callsTo('POST', /\/threads$/)).toEqual([]);
  });
});
