import { afterEach, describe, expect, it } from 'vitest';
import type { ExternalTool } from '../../src/agent/tools/external-tool.js';
import { waitFor } from '../fakes/wait-for.js';
import { startDiscordErrand, type DiscordErrand } from './discord-harness.js';

let e: DiscordErrand | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
});

/** A quick tool and one that answers once released. */
function tools() {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const tool = (name: string, wait: boolean): ExternalTool => ({
    name,
    description: `test tool ${name}`,
    inputSchema: { type: 'object', properties: {} },
    needsApproval: false,
    call: async () => {
      if (wait) await held;
      return { ok: true, note: `${name} finished` };
    },
  });
  return {
    source: { toolsFor: () => [tool('tracker__search', false), tool('tracker__export', true)] },
    release: () => release(),
  };
}

describe("a run's steps on Discord", () => {
  it('the working note lists the steps as they change, through the real discord.js client', async () => {
    const t = tools();
    e = await startDiscordErrand({}, { externalTools: t.source });
    const { discord: d, model } = e;
    model.reply(
      {
        toolCalls: [
          { id: 'call_1', name: 'tracker__search', arguments: '{}' },
          { id: 'call_2', name: 'tracker__export', arguments: '{}' },
        ],
      },
      { text: 'Exported.' },
    );
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> export the tracker`);
    const notes = () =>
      d.calls
        .filter(
          (c) =>
            (c.method === 'POST' || c.method === 'PATCH') &&
            String((c.body as { content?: unknown } | null)?.content ?? '').startsWith('⏳ Working'),
        )
        .map((c) => String((c.body as { content: string }).content));
    await waitFor(
      () => notes().some((n) => n.includes('⚙️ Running tracker__export')),
      10_000,
      'the note listing the running step',
    );
    expect(notes().find((n) => n.includes('⚙️ Running tracker__export'))).toBe(
      '⏳ Working… press **Stop** to stop me.\n✅ Running tracker__search — tracker__search finished\n⚙️ Running tracker__export',
    );
    t.release();
    await waitFor(() => d.botMessagesIn(msg.id).some((m) => m.content === 'Exported.'), 10_000, 'the answer');
    await e.app.coordinator.idle();
    await waitFor(
      () => !d.botMessagesIn(msg.id).some((m) => m.content.startsWith('⏳ Working')),
      5000,
      'the note to be taken down',
    );
  });
});
