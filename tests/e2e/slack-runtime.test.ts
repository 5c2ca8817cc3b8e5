import { afterEach, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../fakes/fake-slack.js';
import { waitFor } from '../fakes/wait-for.js';
import { buttonsOf, startErrand, texts, type Errand } from './slack-harness.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';

let e: Errand | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
});

const askStep = {
  toolCalls: [{ name: 'ask_user', arguments: { question: 'Which format?', options: ['PDF', 'Markdown'] } }],
};
const errorCalls = (s: FakeSlack) =>
  s.calls.filter((c) => c.error !== null && c.error !== 'already_reacted' && c.error !== 'no_reaction');

describe('Errand on Slack, end to end', () => {
  it('a mention is answered in its thread; a follow-up needs no mention; the reaction comes and goes', async () => {
    e = await startErrand();
    const { slack: s, model } = e;
    model.reply({ text: 'Four.' }, { text: 'Six.' });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'what is **2+2**?' });
    await waitFor(() => texts(s, ts).includes('Four.'));
    expect(s.messages(CHANNEL, null).filter((m) => m.user === s.botUserId)).toEqual([]);
    await s.userMessage({ user: ALICE, channel: CHANNEL, text: 'and 3+3?', threadTs: ts });
    await waitFor(() => texts(s, ts).includes('Six.'));
    const history = JSON.stringify(model.requests[1]!.messages);
    expect(history).toContain('what is **2+2**?');
    expect(history).toContain('Four.');
    expect(s.callsOf('reactions.add')[0]!.args).toMatchObject({ channel: CHANNEL, timestamp: ts });
    await e.app.coordinator.idle();
    await waitFor(() => s.callsOf('reactions.remove').length === 2);
    expect(errorCalls(s)).toEqual([]);
  });

  it('both twins and a redelivery of a mention are answered once', async () => {
    e = await startErrand();
    const { slack: s, model } = e;
    model.reply({ text: 'Once.' });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'say it once', order: 'together' });
    await s.sendEvent(s.deliveries.at(-1)!.event, { retryNum: 1 });
    await waitFor(() => texts(s, ts).includes('Once.'));
    await e.app.coordinator.idle();
    await s.sendEvent(s.deliveries.find((d) => d.event.type === 'app_mention')!.event, { retryNum: 2 });
    await s.settle();
    await e.app.coordinator.idle();
    expect(model.requests).toHaveLength(1);
    expect(texts(s, ts)).toEqual(['Once.']);
  });

  it('answers a DM in the DM, without a thread', async () => {
    e = await startErrand();
    const { slack: s, model } = e;
    model.reply({ text: 'Hello in private.' });
    await s.userMessage({ user: ALICE, channel: 'D0ALICE01', text: 'hi there' });
    await waitFor(() => s.botTexts('D0ALICE01', null).includes('Hello in private.'));
    expect(s.messages('D0ALICE01').find((m) => m.text === 'Hello in private.')!.thread_ts).toBeUndefined();
  });

  it('ask_user: the question mentions the asker with buttons; a typed answer resumes the run', async () => {
    e = await startErrand();
    const { slack: s, model } = e;
    model.reply(askStep, { text: 'Markdown it is.' });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'write the report' });
    const question = await waitFor(() => s.messages(CHANNEL, ts).find((m) => m.text.includes('Which format?')));
    expect(question!.text).toBe(`<@${ALICE}> Which format?`);
    expect(JSON.stringify(question!.blocks)).toContain('"text":"Markdown"');
    await e.app.coordinator.idle();
    await s.userMessage({ user: ALICE, channel: CHANNEL, text: 'markdown please', threadTs: ts });
    await waitFor(() => texts(s, ts).includes('Markdown it is.'));
    expect(JSON.stringify(model.requests[1]!.messages)).toContain('markdown please');
  });

  it('ask_user: clicking an option answers with its label and replaces the buttons', async () => {
    e = await startErrand();
    const { slack: s, model } = e;
    model.reply(askStep, { text: 'PDF then.' });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'write the report' });
    const question = (await waitFor(() => s.messages(CHANNEL, ts).find((m) => m.text.includes('Which format?'))))!;
    await e.app.coordinator.idle();
    const pdf = buttonsOf(question)[0]!;
    await s.click({ user: ALICE, channel: CHANNEL, messageTs: question.ts, actionId: pdf.action_id });
    await waitFor(() => texts(s, ts).includes('PDF then.'));
    expect(JSON.stringify(model.requests[1]!.messages)).toContain('PDF');
    await waitFor(() => buttonsOf(s.messages(CHANNEL, ts).find((m) => m.ts === question.ts)!).length === 0);
  });

  it('several messages of one run arrive in order', async () => {
    e = await startErrand();
    const { slack: s, model } = e;
    model.reply(
      {
        text: 'Step one.',
        toolCalls: [
          { name: 'send_update', arguments: { text: 'Step two.' } },
          { name: 'send_update', arguments: { text: 'Step three.' } },
        ],
      },
      { text: 'Step four.', toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] },
    );
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'do four steps' });
    await waitFor(() => texts(s, ts).includes('Step four.'));
    expect(texts(s, ts)).toEqual(['Step one.', 'Step two.', 'Step three.', 'Step four.']);
  });

  it('the Stop button on the working notice stops the run, says so, and removes the notice', async () => {
    e = await startErrand();
    const { slack: s, model } = e;
    model.reply({ hang: true });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'take forever' });
    const notice = (await waitFor(() => s.messages(CHANNEL, ts).find((m) => m.text.includes('Working'))))!;
    const click = await s.click({
      user: ALICE,
      channel: CHANNEL,
      messageTs: notice.ts,
      actionId: buttonsOf(notice)[0]!.action_id,
    });
    expect(click.status).toBe(200);
    await waitFor(() => texts(s, ts).some((t) => t.includes('Stopped')));
    await waitFor(() => model.requests[0]!.aborted);
    await waitFor(() => !s.messages(CHANNEL, ts).some((m) => m.ts === notice.ts));
    expect(errorCalls(s)).toEqual([]);
  });

  it('/tasks, /stop, /schedules and /help answer ephemerally from the real handlers; /stop stops a running run', async () => {
    e = await startErrand();
    const { slack: s, model } = e;
    model.reply({ hang: true });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'a long job' });
    await waitFor(() => model.requests.length === 1);
    const reply = async (command: string, text = '') =>
      JSON.parse((await s.slashCommand({ command, text, user: ALICE, channel: CHANNEL })).body) as {
        response_type: string;
        text: string;
      };
    const tasks = await reply('/tasks');
    const help = await reply('/help');
    const schedules = await reply('/schedules');
    const stop = await reply('/stop');
    for (const r of [tasks, help, schedules, stop]) expect(r.response_type).toBe('ephemeral');
    expect(tasks.text).toContain('a long job');
    expect(help.text).toContain('/tasks');
    expect(schedules.text.length).toBeGreaterThan(0);
    expect(stop.text).toContain('stopped 1 run');
    await waitFor(() => texts(s, ts).some((t) => t.includes('Stopped')));
    expect((await reply('/stop')).text).toContain('Nothing is running');
  });

  it('a 429 on the call that starts the answer delays the reply but loses nothing', async () => {
    e = await startErrand();
    const { slack: s, model } = e;
    model.reply({ text: 'Eventually.' });
    // A quick answer is one streamed message: chat.startStream is its first call.
    s.failNext('chat.startStream', { status: 429, retryAfter: 1 });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'hurry' });
    await waitFor(() => texts(s, ts).includes('Eventually.'), 20_000);
    expect(s.callsOf('chat.startStream').filter((c) => c.status === 429)).toHaveLength(1);
    expect(texts(s, ts)).toEqual(['Eventually.']);
  });

  it('"@Errand stop" in the thread stops the run within a second', async () => {
    e = await startErrand();
    const { slack: s, model } = e;
    model.reply({ hang: true });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'take forever' });
    await waitFor(() => model.requests.length === 1);
    const asked = Date.now();
    await s.mention({ user: ALICE, channel: CHANNEL, text: 'stop', threadTs: ts });
    await waitFor(() => model.requests[0]!.aborted, 1000);
    await waitFor(() => texts(s, ts).some((t) => t.includes('Stopped')));
    expect(Date.now() - asked).toBeLessThan(1000);
    expect(model.requests).toHaveLength(1);
  });
});
