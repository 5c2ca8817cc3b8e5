import { afterEach, describe, expect, it } from 'vitest';
import { renderPieces } from '../../adapters/discord/message-bodies.js';
import { waitFor } from '../fakes/wait-for.js';
import { PRODUCTION_STREAMING, startDiscordErrand, type DiscordErrand } from './discord-harness.js';
import { sqliteDb } from '../fakes/sqlite-db.js';

let e: DiscordErrand | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
});

const paragraph = (i: number) =>
  `Part ${i}: a streamed answer grows in one message, edited as the model writes it, and goes on in a new one.`;
const LONG = Array.from({ length: 24 }, (_, i) => paragraph(i + 1)).join('\n\n');

describe('streamed answers on Discord', () => {
  it('one message is edited at most every 1.5 s and the text rolls over into a new message where a long answer is split', async () => {
    e = await startDiscordErrand({}, { tuning: PRODUCTION_STREAMING });
    const { discord: d, model } = e;
    model.usageWith(() => ({ promptTokens: 400, completionTokens: 600 }));
    model.streamPace({ chunkChars: 24, chunkDelayMs: 15 });
    model.reply({ text: LONG });
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> write it out`);
    const expected = renderPieces(LONG);
    expect(expected.length).toBe(2);
    await waitFor(
      () => JSON.stringify(d.botMessagesIn(msg.id).map((m) => m.content)) === JSON.stringify(expected),
      30_000,
      'the finished answer in two messages',
    );
    await e.app.coordinator.idle();
    const ids = d.botMessagesIn(msg.id).map((m) => m.id);
    const writes = d.calls.filter(
      (c) =>
        (c.method === 'PATCH' && ids.some((id) => c.path.endsWith(`/messages/${id}`))) ||
        (c.method === 'POST' &&
          c.path === `/channels/${msg.id}/messages` &&
          !String((c.body as { content?: string }).content).startsWith('⏳')),
    );
    expect(d.calls.filter((c) => c.method === 'PATCH').length).toBeGreaterThan(0);
    const gaps = writes.slice(1).map((w, i) => w.at - writes[i]!.at);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1490);
    expect(d.calls.filter((c) => c.status === 429)).toEqual([]);
    const tokens = sqliteDb(e.app.store).$client.prepare('select tokens from runs').all() as { tokens: number }[];
    expect(tokens).toEqual([{ tokens: 1000 }]);
  }, 60_000);

  it('tool calls streamed in fragments run as they would unstreamed, and the final text is the model answer', async () => {
    e = await startDiscordErrand();
    const { discord: d, model } = e;
    model.streamPace({ chunkChars: 3 });
    model.reply(
      {
        toolCalls: [
          { id: 'call_1', name: 'add_task', arguments: { title: 'Water the {plants}', description: 'with "care"' } },
        ],
      },
      { text: 'Added **one** task.' },
    );
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> remind me`);
    await waitFor(() => d.botMessagesIn(msg.id).some((m) => m.content === 'Added **one** task.'), 20_000, 'the answer');
    const second = model.requests[1]!.messages;
    const call = second.find((m) => m.role === 'assistant')!.tool_calls as {
      function: { name: string; arguments: string };
    }[];
    expect(call[0]!.function).toEqual({
      name: 'add_task',
      arguments: JSON.stringify({ title: 'Water the {plants}', description: 'with "care"' }),
    });
    expect(String(second.find((m) => m.role === 'tool')!.content)).toContain('"ok":true');
  }, 60_000);
});
