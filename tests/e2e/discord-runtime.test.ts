import { afterEach, describe, expect, it } from 'vitest';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import { waitFor } from '../fakes/wait-for.js';
import { startDiscordErrand, until, type DiscordErrand } from './discord-harness.js';

let e: DiscordErrand;
afterEach(async () => e?.close());

const texts = (d: FakeDiscord, channelId: string) => d.botMessagesIn(channelId).map((m) => m.content);
const lastUserText = (req: { messages: { role: string; content?: unknown }[] }) =>
  String(req.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');
const askStep = {
  toolCalls: [{ name: 'ask_user', arguments: { question: 'Which format?', options: ['PDF', 'Markdown'] } }],
};

describe('Errand on Discord, end to end', () => {
  it('a mention opens a thread named after the request and the answer lands in it; a follow-up needs no mention', async () => {
    e = await startDiscordErrand();
    const { discord: d, model } = e;
    model.reply({ text: 'Four.' }, { text: 'Six.' });
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> what is 2+2?`);
    await waitFor(() => texts(d, msg.id).includes('Four.'));
    expect(d.channels.get(msg.id)).toMatchObject({ name: 'what is 2+2?', parent_id: d.general.id });
    expect(lastUserText(model.requests[0]!)).toContain('what is 2+2?');
    expect(texts(d, d.general.id)).toEqual([]);

    d.userMessage(msg.id, 'and 3+3?');
    await waitFor(() => texts(d, msg.id).includes('Six.'));
    const history = JSON.stringify(model.requests[1]!.messages);
    expect(history).toContain('what is 2+2?');
    expect(history).toContain('Four.');
    expect(d.callsTo('POST', /\/threads$/)).toHaveLength(1);
  });

  it('when the thread cannot be opened, the answer comes in the channel', async () => {
    e = await startDiscordErrand();
    const { discord: d, model } = e;
    d.refuseThreads({ status: 403, code: 50013, message: 'Missing Permissions' });
    model.reply({ text: 'In the channel then.' });
    d.userMessage(d.general.id, `<@${d.bot.id}> no threads for me`);
    await waitFor(() => texts(d, d.general.id).includes('In the channel then.'));
  });

  it('with DISCORD_THREADS=false the answer comes in the channel', async () => {
    e = await startDiscordErrand({ DISCORD_THREADS: 'false' });
    const { discord: d, model } = e;
    model.reply({ text: 'Here.' });
    d.userMessage(d.general.id, `<@${d.bot.id}> answer here`);
    await waitFor(() => texts(d, d.general.id).includes('Here.'));
    expect(d.callsTo('POST', /\/threads$/)).toEqual([]);
  });

  it('answers a DM in the DM channel', async () => {
    e = await startDiscordErrand();
    const { discord: d, model } = e;
    model.reply({ text: 'Hello in private.' });
    const dm = d.directMessage('hi there');
    await waitFor(() => texts(d, dm.channel_id).includes('Hello in private.'));
  });

  it('a duplicate delivery of the same message is answered once', async () => {
    e = await startDiscordErrand();
    const { discord: d, model } = e;
    model.reply({ text: 'Once.' });
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> say it once`);
    d.redeliver(msg.id);
    await waitFor(() => texts(d, msg.id).includes('Once.'));
    d.redeliver(msg.id);
    await e.app.coordinator.idle();
    await new Promise((r) => setTimeout(r, 80));
    // A run slow enough to show the working notice (a loaded machine) takes it down just after it ends.
    await waitFor(
      () => !texts(d, msg.id).some((t) => t.startsWith('⏳ Working')),
      5000,
      'the working notice to be taken down',
    );
    expect(model.requests).toHaveLength(1);
    expect(texts(d, msg.id)).toEqual(['Once.']);
  });

  it('ask_user: the question mentions the asker with buttons; a typed answer resumes the run', async () => {
    e = await startDiscordErrand();
    const { discord: d, model } = e;
    model.reply(askStep, { text: 'Markdown it is.' });
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> write the report`);
    const question = await until(() => d.botMessagesIn(msg.id).find((m) => m.content.includes('Which format?')));
    expect(question.content).toBe(`<@${d.alice.id}> Which format?`);
    expect(JSON.stringify(question.components)).toContain('"label":"Markdown"');
    await e.app.coordinator.idle();
    d.userMessage(msg.id, 'markdown please');
    await waitFor(() => texts(d, msg.id).includes('Markdown it is.'));
    expect(JSON.stringify(model.requests[1]!.messages)).toContain('markdown please');
  });

  it('ask_user: clicking an option answers with its label and removes the buttons', async () => {
    e = await startDiscordErrand();
    const { discord: d, model } = e;
    model.reply(askStep, { text: 'PDF then.' });
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> write the report`);
    const question = await until(() =>
      d.botMessagesIn(msg.id).find((m) => m.components.length > 0 && m.content.includes('Which format?')),
    );
    await e.app.coordinator.idle();
    const pdf = (question.components as { components: { custom_id: string; label: string }[] }[])[0]!.components[0]!;
    const click = d.clickButton(question.id, pdf.custom_id);
    await waitFor(() => texts(d, msg.id).includes('PDF then.'));
    expect(click.callbacks.map((c) => c.type)).toEqual([7]);
    expect(d.messages.get(question.id)!.components).toEqual([]);
    expect(JSON.stringify(model.requests[1]!.messages)).toContain('PDF');
  });

  it('the Stop button on the working notice stops the run, says so, and removes the notice', async () => {
    e = await startDiscordErrand();
    const { discord: d, model } = e;
    model.reply({ hang: true });
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> take forever`);
    const notice = await until(() => d.botMessagesIn(msg.id).find((m) => m.content.includes('Working')));
    const stop = (notice.components as { components: { custom_id: string }[] }[])[0]!.components[0]!.custom_id;
    const click = d.clickButton(notice.id, stop);
    await waitFor(() => texts(d, msg.id).some((t) => t.includes('Stopped')));
    await waitFor(() => d.messages.get(notice.id)!.deleted);
    await waitFor(() => model.requests[0]!.aborted);
    await waitFor(() => click.callbacks.length === 1);
    expect(d.calls.filter((c) => c.status >= 400)).toEqual([]);
  });

  it('slash commands answer ephemerally from the real command handlers', async () => {
    e = await startDiscordErrand();
    const { discord: d, model } = e;
    model.reply({ text: 'Done.' });
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> a small job`);
    await waitFor(() => texts(d, msg.id).includes('Done.'));
    await e.app.coordinator.idle();
    const uses = {
      tasks: d.slashCommand('tasks', msg.id),
      stop: d.slashCommand('stop', msg.id),
      schedules: d.slashCommand('schedules', d.general.id, [{ type: 1, name: 'list', options: [] }]),
      help: d.slashCommand('help', d.general.id),
    };
    await waitFor(() => Object.values(uses).every((u) => u.responses.length >= 1 && u.responses[0]!.content !== ''));
    for (const u of Object.values(uses)) expect(u.responses[0]!.ephemeral).toBe(true);
    expect(uses.tasks.responses[0]!.content).toContain('a small job');
    expect(uses.help.responses[0]!.content).toContain('/tasks');
    expect(uses.stop.responses[0]!.content.length).toBeGreaterThan(0);
    expect(uses.schedules.responses[0]!.content.length).toBeGreaterThan(0);
  });

  it('a gateway reconnect during a run loses nothing and answers nothing twice', async () => {
    e = await startDiscordErrand();
    const { discord: d, model } = e;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    model.reply({ text: 'First done.', gate }, { text: 'Second done.' });
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> first job`);
    await waitFor(() => model.requests.length === 1);
    d.requestReconnect();
    d.userMessage(msg.id, 'second job');
    await waitFor(() => d.stats.resumes === 1);
    release();
    await waitFor(() => texts(d, msg.id).includes('Second done.'));
    await e.app.coordinator.idle();
    const replies = texts(d, msg.id).filter((t) => t.endsWith('done.'));
    expect(replies).toEqual(['First done.', 'Second done.']);
    expect(model.requests).toHaveLength(2);
  });

  it('a scheduled prompt posts at the top level of the channel, opens a thread on it and answers there', async () => {
    e = await startDiscordErrand();
    const { discord: d, model, clock } = e;
    const at = new Date(clock.now() + 60 * 60_000).toISOString();
    model.reply(
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
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> in an hour, summarise the day`);
    await waitFor(() => texts(d, msg.id).includes('Scheduled for in an hour.'));
    await e.app.coordinator.idle();
    clock.advance(60 * 60_000 + 1000);
    const top = await until(() => d.botMessagesIn(d.general.id).find((m) => m.content.includes('summarise the day')));
    await waitFor(() => texts(d, top.id).includes('Here is the summary.'));
    expect(d.channels.get(top.id)).toMatchObject({ parent_id: d.general.id, owner_id: d.bot.id });
  });
});
