import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDiscordAdapter, discordOptionsFromConfig } from '../../adapters/discord/create-discord-adapter.js';
import { createApp, type App } from '../../src/app.js';
import { createMcpHub } from '../../src/composition/mcp-hub.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { nextSnowflake, type FakeMessage, type FakeUser, type InteractionRecord } from '../fakes/fake-discord.js';
import { waitFor } from '../fakes/wait-for.js';
import { startElicitFixture, type ElicitFixture } from '../fixtures/mcp/elicit-fixture-server.js';
import { capturingLogger, settings } from '../fixtures/mcp/mcp-test-kit.js';
import { startDiscordErrand, startDiscordWorld, TEST_TUNING, until, type DiscordErrand } from './discord-harness.js';
import { toolResults } from './mcp-e2e-kit.js';

let fixture: ElicitFixture;
let e: DiscordErrand | null = null;
beforeAll(async () => {
  fixture = await startElicitFixture();
});
afterAll(() => fixture.close());
afterEach(async () => {
  await e?.close();
  e = null;
});

const buttonsOf = (m: { components: unknown[] }) =>
  (m.components as { components: { custom_id: string; label: string }[] }[]).flatMap((row) => row.components);
const lastReply = (r: InteractionRecord) => r.responses.at(-1);
const inputs = (r: InteractionRecord) => r.modal!.components.map((row) => row.components[0]!);

/** Alice asks in #general; the model calls `diner__<tool>`, whose server asks her something; resolves with the question's post. */
async function askVia(
  tool: string,
  after: string,
): Promise<{ e: DiscordErrand; thread: string; question: FakeMessage }> {
  const hub = createMcpHub({ servers: { diner: settings({ url: fixture.url }) }, logger: capturingLogger().logger });
  e = await startDiscordErrand({}, { externalTools: hub });
  e.model.reply({ toolCalls: [{ name: `diner__${tool}`, arguments: {} }] }, { text: after });
  const msg = e.discord.userMessage(e.discord.general.id, `<@${e.discord.bot.id}> book me a table`);
  const question = await until(
    () =>
      e!.discord.botMessagesIn(msg.id).find((m) => buttonsOf(m).some((b) => b.custom_id.startsWith('errand:elicit:'))),
    10_000,
  );
  return { e, thread: msg.id, question };
}

const button = (m: { components: unknown[] }, label: string) => buttonsOf(m).find((b) => b.label === label)!.custom_id;

describe('MCP elicitation on Discord (real discord.js against the fake Discord, real MCP SDK server)', () => {
  it('a form of six fields comes as two modals with defaults filled in; a wrong answer comes back with Fix it, which reopens the form as submitted', async () => {
    const { e, thread, question } = await askVia('book_table', 'Booked.');
    expect(question.content).toContain(`<@${e.discord.alice.id}>`);
    expect(buttonsOf(question).map((b) => b.label)).toEqual(['Answer', 'Decline']);

    const answer = e.discord.clickButton(question.id, button(question, 'Answer'));
    await until(() => answer.modal, 10_000);
    expect(answer.modal!.title).toBe('diner asks (1/2)');
    expect(inputs(answer).map((i) => [i.label, i.value ?? '', i.required])).toEqual([
      ['Party size', '2', false],
      ['Date', '', true],
      ['Seating', 'Indoors', false],
      ['Vegetarian menu', 'no', false],
      ['Note', '', false],
    ]);
    expect(inputs(answer)[0]!.placeholder).toBe('A whole number from 1 to 12');

    const first = e.discord.submitModal(answer, { f0: '13', f1: '2026-03-01', f2: 'terrace' }, thread);
    await until(() => buttonsOf(lastReply(first) ?? { components: [] }).length > 0, 10_000);
    expect(lastReply(first)).toMatchObject({
      ephemeral: true,
      content: 'Part 1 of 2 kept. Continue with the next part.',
    });
    const next = e.discord.clickInResponse(first, button(lastReply(first)!, 'Continue'));
    await until(() => next.modal, 10_000);
    expect(inputs(next).map((i) => i.label)).toEqual(['Extras']);
    const second = e.discord.submitModal(next, { f5: 'Birthday cake' }, thread);
    await until(() => lastReply(second)?.content.startsWith('Not sent yet'), 10_000);
    expect(lastReply(second)!.content).toBe('Not sent yet:\n• **Party size**: Enter 12 or less.');

    const fix = e.discord.clickInResponse(second, button(lastReply(second)!, 'Fix it'));
    await until(() => fix.modal, 10_000);
    expect(inputs(fix).map((i) => i.value ?? '')).toEqual(['13', '2026-03-01', 'terrace', 'no', '']);
    const fixed = e.discord.submitModal(fix, { f0: '6' }, thread);
    await until(() => lastReply(fixed)?.content.startsWith('Part 1'), 10_000);
    const again = e.discord.clickInResponse(fixed, button(lastReply(fixed)!, 'Continue'));
    await until(() => again.modal, 10_000);
    expect(inputs(again)[0]!.value).toBe('Birthday cake');
    const sent = e.discord.submitModal(again, {}, thread);
    await until(() => lastReply(sent)?.content === 'Sent your answer to diner.', 10_000);

    await waitFor(() => e.discord.botMessagesIn(thread).some((m) => m.content === 'Booked.'), 10_000, 'the answer');
    expect(toolResults(e.model.requests[1]!)).toEqual([
      {
        ok: true,
        content: JSON.stringify({
          action: 'accept',
          content: { party: 6, date: '2026-03-01', seating: 'out', vegetarian: false, extras: ['cake'] },
        }),
      },
    ]);
    await waitFor(
      () => e.discord.messages.get(question.id)!.content.includes('Answered by'),
      5000,
      'the edited question',
    );
    expect(e.discord.messages.get(question.id)!.components).toEqual([]);
  });

  it('a single choice is answered with buttons; someone else is refused privately', async () => {
    const { e, thread, question } = await askVia('pick_seating', 'Terrace it is.');
    const bob: FakeUser = { id: nextSnowflake(), username: 'bob' };
    const bobs = e.discord.clickButton(question.id, button(question, 'Answer'), bob);
    await until(() => lastReply(bobs), 10_000);
    expect(lastReply(bobs)).toMatchObject({
      ephemeral: true,
      content: `This question from diner is for <@${e.discord.alice.id}>, who asked for this work.`,
    });
    expect(bobs.modal).toBeUndefined();

    const answer = e.discord.clickButton(question.id, button(question, 'Answer'));
    await until(() => lastReply(answer), 10_000);
    expect(buttonsOf(lastReply(answer)!).map((b) => b.label)).toEqual(['Indoors', 'Terrace', 'Decline']);
    const pick = e.discord.clickInResponse(answer, button(lastReply(answer)!, 'Terrace'));
    await until(() => lastReply(pick), 10_000);
    await waitFor(
      () => e.discord.botMessagesIn(thread).some((m) => m.content === 'Terrace it is.'),
      10_000,
      'the answer',
    );
    expect(toolResults(e.model.requests[1]!)).toEqual([
      { ok: true, content: JSON.stringify({ action: 'accept', content: { seating: 'out' } }) },
    ]);
  });

  it('URL mode: the thread names the host only; Show link answers the principal alone with the link; Done accepts', async () => {
    const { e, thread, question } = await askVia('pay', 'Paid.');
    expect(question.content).toContain('pay.example.com');
    expect(question.content).not.toContain('https://pay.example.com');
    expect(buttonsOf(question).map((b) => b.label)).toEqual(['Show link', 'Done', 'Decline']);
    const show = e.discord.clickButton(question.id, button(question, 'Show link'));
    await until(() => lastReply(show), 10_000);
    expect(lastReply(show)).toMatchObject({
      ephemeral: true,
      content: expect.stringContaining('https://pay.example.com/deposit?id=42'),
    });
    const done = e.discord.clickButton(question.id, button(question, 'Done'));
    await until(() => lastReply(done), 10_000);
    await waitFor(() => e.discord.botMessagesIn(thread).some((m) => m.content === 'Paid.'), 10_000, 'the answer');
    expect(toolResults(e.model.requests[1]!)).toEqual([
      { ok: true, content: JSON.stringify({ action: 'accept', content: null }) },
    ]);
  });

  it('a question with nothing to fill in is confirmed by Answer itself (Discord takes no modal without inputs)', async () => {
    const { e, thread, question } = await askVia('confirm', 'Cancelled the booking.');
    const answer = e.discord.clickButton(question.id, button(question, 'Answer'));
    await until(() => lastReply(answer), 10_000);
    expect(answer.modal).toBeUndefined();
    expect(lastReply(answer)).toMatchObject({ ephemeral: true, content: 'Sent your answer to diner.' });
    await waitFor(
      () => e.discord.botMessagesIn(thread).some((m) => m.content === 'Cancelled the booking.'),
      10_000,
      'the answer',
    );
    expect(toolResults(e.model.requests[1]!)).toEqual([
      { ok: true, content: JSON.stringify({ action: 'accept', content: {} }) },
    ]);
  });

  it('a restart while the question waits: the post and its buttons stay; after it, only the principal may answer, the modal opens from the stored question and the call is made again with the answer', async () => {
    const world = await startDiscordWorld();
    const clock = new FakeClock(Date.now());
    let app = null as App | null;
    const start = async () => {
      // A fresh process: new discord.js client, new MCP connection, same database.
      const hub = createMcpHub({
        servers: { diner: settings({ url: fixture.url }) },
        logger: capturingLogger().logger,
      });
      app = await createApp({
        config: world.config,
        adapters: [createDiscordAdapter({ ...discordOptionsFromConfig(world.config), tuning: TEST_TUNING })],
        clock,
        modelBackoffMs: () => 5,
        externalTools: hub,
      });
      await app.start();
      return app;
    };
    const { discord: d, model } = world;
    try {
      await start();
      model.reply(
        { toolCalls: [{ name: 'diner__defaults', arguments: {} }] },
        { text: 'Details confirmed after the restart.' },
      );
      const msg = d.userMessage(d.general.id, `<@${d.bot.id}> confirm my details`);
      const question = await until(
        () => d.botMessagesIn(msg.id).find((m) => buttonsOf(m).some((b) => b.custom_id.startsWith('errand:elicit:'))),
        10_000,
      );
      const id = button(question, 'Answer').split(':')[2]!;
      await waitFor(
        async () => (await app!.store.elicitations.get(id))?.messageId === question.id,
        5000,
        'the question to know its post',
      );
      const asked = fixture.log.length;

      await app!.stop();
      const restarted = await start();
      const { runId } = (await restarted.store.elicitations.get(id))!;
      await waitFor(
        async () => (await restarted.runs.get(runId))?.status === 'waiting_user',
        10_000,
        'the run to wait on the question',
      );
      expect(buttonsOf(d.messages.get(question.id)!).map((b) => b.label)).toEqual(['Answer', 'Decline']);
      expect(model.requests).toHaveLength(1);

      const bobs = d.clickButton(question.id, button(question, 'Answer'), { id: nextSnowflake(), username: 'bob' });
      await until(() => lastReply(bobs), 10_000);
      expect(lastReply(bobs)).toMatchObject({
        ephemeral: true,
        content: `This question from diner is for <@${d.alice.id}>, who asked for this work.`,
      });
      expect(bobs.modal).toBeUndefined();

      const answer = d.clickButton(question.id, button(question, 'Answer'));
      await until(() => answer.modal, 10_000);
      expect(inputs(answer).map((i) => i.value ?? '')).toEqual(['John Doe', '30', '95.5', 'active', 'yes']);
      const sent = d.submitModal(answer, { f0: 'Ada' }, msg.id);
      await until(() => lastReply(sent)?.content === 'Sent your answer to diner.', 10_000);

      await waitFor(
        () => d.botMessagesIn(msg.id).some((m) => m.content === 'Details confirmed after the restart.'),
        10_000,
        'the answer',
      );
      const content = { name: 'Ada', age: 30, score: 95.5, status: 'active', verified: true };
      expect(fixture.log.slice(asked)).toEqual([{ action: 'accept', content }]);
      expect(toolResults(model.requests[1]!).at(-1)).toEqual({
        ok: true,
        content: JSON.stringify({ action: 'accept', content }),
      });
      await waitFor(() => d.messages.get(question.id)!.content.includes('Answered by'), 5000, 'the answered post');
      expect(d.messages.get(question.id)!.components).toEqual([]);
    } finally {
      await app?.stop();
      await world.close();
    }
  });
});
