import { afterEach, describe, expect, it } from 'vitest';
import { parseActionId } from '../../src/chat/action-id.js';
import type { FakeDiscord, FakeMessage } from '../fakes/fake-discord.js';
import type { FakeStep } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { ExternalToolsFixture } from '../integration/external-tools-fixture.js';
import { startDiscordErrand, until, type DiscordErrand } from './discord-harness.js';

const STALE = 'That question has already been answered.';

let e: DiscordErrand | null = null;
afterEach(async () => {
  await e?.app.coordinator.idle();
  await e?.close();
  e = null;
});

const ask = (question: string, options: string[]) => ({
  toolCalls: [{ name: 'ask_user', arguments: { question, options } }],
});
const texts = (d: FakeDiscord, channelId: string) =>
  d
    .botMessagesIn(channelId)
    .map((m) => m.content)
    .filter((t) => !t.startsWith('⏳ Working'));
const buttonsOf = (m: FakeMessage) =>
  (m.components as { components: { custom_id: string; label: string }[] }[]).flatMap((row) => row.components);

/** The single ephemeral reply to an interaction. */
async function ephemeralReply(record: { responses: { ephemeral: boolean; content: string }[] }): Promise<string> {
  await until(() => record.responses.length === 1, 5000);
  expect(record.responses[0]!.ephemeral).toBe(true);
  return record.responses[0]!.content;
}

/**
 * Alice asks; the model asks "Which format?" with buttons, Alice answers by typing, and the model's next
 * step (`next`) asks again: resolves with the thread, the first question and the post the run now waits on.
 */
async function askedTwice(
  next: FakeStep,
  waitingOn: string,
  after: string,
  tools?: ExternalToolsFixture,
): Promise<{ e: DiscordErrand; thread: string; first: FakeMessage; second: FakeMessage }> {
  e = await startDiscordErrand({}, tools ? { externalTools: tools.source } : {});
  const { discord: d, model, app } = e;
  model.reply(ask('Which format?', ['PDF', 'Markdown']), next, { text: after });
  const thread = d.userMessage(d.general.id, `<@${d.bot.id}> write the report`).id;
  const first = await until(
    () => d.botMessagesIn(thread).find((m) => m.content.includes('Which format?') && m.components.length > 0),
    10_000,
  );
  await app.coordinator.idle();
  d.userMessage(thread, 'markdown please');
  const second = await until(
    () => d.botMessagesIn(thread).find((m) => m.content.includes(waitingOn) && m.components.length > 0),
    10_000,
  );
  await app.coordinator.idle();
  return { e, thread, first, second };
}

describe('a button answers only the question it was posted with (Discord, real discord.js)', () => {
  it('an option of an earlier question, clicked while a later one waits, gets an ephemeral note and changes nothing; the current buttons still answer', async () => {
    const { e, thread, first, second } = await askedTwice(
      ask('Which size?', ['A4', 'Letter']),
      'Which size?',
      'Markdown on A4.',
    );
    const { discord: d, model, app } = e;
    const runId = parseActionId(buttonsOf(first)[0]!.custom_id)!.runId;

    expect(await ephemeralReply(d.clickButton(first.id, buttonsOf(first)[0]!.custom_id))).toBe(STALE);
    await app.coordinator.idle();
    const run = await app.runs.get(runId);
    expect(run?.status).toBe('waiting_user');
    expect(run?.question?.question).toBe('Which size?');
    expect(run?.question?.answer).toBeUndefined();
    expect(model.requests).toHaveLength(2);
    expect(buttonsOf(d.messages.get(second.id)!)).toHaveLength(2);

    const click = d.clickButton(second.id, buttonsOf(second)[0]!.custom_id);
    await waitFor(() => texts(d, thread).includes('Markdown on A4.'), 10_000, 'the answer after the current click');
    expect(click.callbacks.map((c) => c.type)).toEqual([7]);
    const results = model.requests[2]!.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(results.at(-1)).toContain('"answer":"A4"');
    expect(JSON.stringify(model.requests[2]!.messages)).not.toContain('"answer":"PDF"');
  });

  it('an option of an earlier question, clicked while a tool approval waits, is no decision: the approval still waits, and Allow once still runs the tool', async () => {
    const tools = new ExternalToolsFixture();
    const approvalStep = { toolCalls: [{ name: 'tracker__create_issue', arguments: { title: 'Report in Markdown' } }] };
    const { e, thread, first, second } = await askedTwice(approvalStep, 'Approval needed', 'Filed it.', tools);
    const { discord: d, model, app } = e;
    const runId = parseActionId(buttonsOf(second)[0]!.custom_id)!.runId;

    expect(await ephemeralReply(d.clickButton(first.id, buttonsOf(first)[1]!.custom_id))).toBe(STALE);
    await app.coordinator.idle();
    const run = await app.runs.get(runId);
    expect(run?.status).toBe('waiting_user');
    expect(run?.question?.approval?.tool).toBe('tracker__create_issue');
    expect(run?.question?.answer).toBeUndefined();
    expect(tools.calls).toEqual([]);
    expect(model.requests).toHaveLength(2);

    d.clickButton(second.id, buttonsOf(second)[0]!.custom_id);
    await waitFor(() => texts(d, thread).includes('Filed it.'), 10_000, 'the answer after Allow once');
    expect(tools.calls).toEqual([{ name: 'tracker__create_issue', args: { title: 'Report in Markdown' } }]);
  });
});
