import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMcpHub } from '../../src/mcp/mcp-hub.js';
import { nextSnowflake, type FakeMessage, type FakeUser, type InteractionRecord } from '../fakes/fake-discord.js';
import { waitFor } from '../fakes/wait-for.js';
import { startElicitFixture, type ElicitFixture } from '../fixtures/mcp/elicit-fixture-server.js';
import { capturingLogger, settings } from '../fixtures/mcp/mcp-test-kit.js';
import { startDiscordErrand, until, type DiscordErrand } from './discord-harness.js';
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

const buttonsOf = (m: { components: unknown[] }) => (m.components as { components: { custom_id: string; label: string }[] }[]).flatMap((row) => row.components);
const lastReply = (r: InteractionRecord) => r.responses.at(-1);
const inputs = (r: InteractionRecord) => r.modal!.components.map((row) => row.components[0]!);

/** Alice asks in #general; the model calls `diner__<tool>`, whose server asks her something; resolves with the question's post. */
async function askVia(tool: string, after: string): Promise<{ e: DiscordErrand; thread: string; question: FakeMessage }> {
  const hub = createMcpHub({ servers: { diner: settings({ url: fixture.url }) }, logger: capturingLogger().logger });
  e = await startDiscordErrand({}, { externalTools: hub });
  e.model.reply({ toolCalls: [{ name: `diner__${tool}`, arguments: {} }] }, { text: after });
  const msg = e.discord.userMessage(e.discord.general.id, `<@${e.discord.bot.id}> book me a table`);
  const question = await until(() => e!.discord.botMessagesIn(msg.id).find((m) => buttonsOf(m).some((b) => b.custom_id.startsWith('errand:elicit:'))), 10_000);
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
    expect(lastReply(first)).toMatchObject({ ephemeral: true, content: 'Part 1 of 2 kept. Continue with the next part.' });
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
      { ok: true, content: JSON.stringify({ action: 'accept', content: { party: 6, date: '2026-03-01', seating: 'out', vegetarian: false, extras: ['cake'] } }) },
    ]);
    await waitFor(() => e.discord.messages.get(question.id)!.content.includes('Answered by'), 5000, 'the edited question');
    expect(e.discord.messages.get(question.id)!.components).toEqual([]);
  });

  it('a single choice is answered with buttons; someone else is refused privately', async () => {
    const { e, thread, question } = await askVia('pick_seating', 'Terrace it is.');
    const bob: FakeUser = { id: nextSnowflake(), username: 'bob' };
    const bobs = e.discord.clickButton(question.id, button(question, 'Answer'), bob);
    await until(() => lastReply(bobs), 10_000);
    expect(lastReply(bobs)).toMatchObject({ ephemeral: true, content: `This question from diner is for <@${e.discord.alice.id}>, who asked for this work.` });
    expect(bobs.modal).toBeUndefined();

    const answer = e.discord.clickButton(question.id, button(question, 'Answer'));
    await until(() => lastReply(answer), 10_000);
    expect(buttonsOf(lastReply(answer)!).map((b) => b.label)).toEqual(['Indoors', 'Terrace', 'Decline']);
    const pick = e.discord.clickInResponse(answer, button(lastReply(answer)!, 'Terrace'));
    await until(() => lastReply(pick), 10_000);
    await waitFor(() => e.discord.botMessagesIn(thread).some((m) => m.content === 'Terrace it is.'), 10_000, 'the answer');
    expect(toolResults(e.model.requests[1]!)).toEqual([{ ok: true, content: JSON.stringify({ action: 'accept', content: { seating: 'out' } }) }]);
  });
});
