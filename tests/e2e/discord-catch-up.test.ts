import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordAdapter, discordOptionsFromConfig } from '../../adapters/discord/create-discord-adapter.js';
import { createApp, type App } from '../../src/app.js';
import { FakeClock } from '../fakes/fake-clock.js';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import type { RecordedRequest } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { startDiscordWorld, TEST_TUNING } from './discord-harness.js';

/** Errand on Discord that stops and starts again on the same database, the fakes kept. */
async function restartableErrand() {
  const world = await startDiscordWorld();
  const { config, discord, model } = world;
  const clock = new FakeClock(Date.now());
  let app: App | null = null;
  const handle = {
    discord,
    model,
    app: () => app!,
    async start() {
      app = await createApp({ config, adapters: [createDiscordAdapter({ ...discordOptionsFromConfig(config), tuning: TEST_TUNING })], clock, modelBackoffMs: () => 5 });
      await app.start();
    },
    async stop() {
      const running = app;
      app = null;
      await running?.stop();
    },
    async close() {
      await handle.stop();
      await world.close();
    },
  };
  await handle.start();
  return handle;
}

let e: Awaited<ReturnType<typeof restartableErrand>> | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
});

const texts = (d: FakeDiscord, channelId: string) => d.botMessagesIn(channelId).map((m) => m.content);
const lastUserText = (r: RecordedRequest) => String(r.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');

describe('Discord catch-up after a restart', () => {
  it('a thread message sent while Errand was down, never redelivered, is answered once after the restart', async () => {
    e = await restartableErrand();
    const { discord: d, model } = e;
    model.reply({ hang: true });
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> draft the release notes`);
    await waitFor(() => model.hanging() === 1, 10_000, 'the model request');
    await e.stop();

    d.userMessage(msg.id, 'also list the breaking changes');
    model.respondWith((r) => ({ text: lastUserText(r).includes('breaking changes') ? 'Breaking changes listed.' : 'Release notes drafted.' }));
    await e.start();
    await waitFor(() => texts(d, msg.id).includes('Breaking changes listed.'), 20_000, 'the answer to the missed message');
    await e.app().coordinator.idle();
    expect(texts(d, msg.id).filter((t) => t === 'Breaking changes listed.')).toHaveLength(1);
    expect(model.requests.filter((r) => lastUserText(r).includes('breaking changes'))).toHaveLength(1);
  });

  it('an answer typed while Errand was down resumes the waiting run', async () => {
    e = await restartableErrand();
    const { discord: d, model } = e;
    model.reply({ toolCalls: [{ name: 'ask_user', arguments: { question: 'Which format?' } }] });
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> export the report`);
    await waitFor(() => texts(d, msg.id).some((t) => t.includes('Which format?')), 10_000, 'the question');
    await e.app().coordinator.idle();
    await e.stop();

    d.userMessage(msg.id, 'PDF please');
    model.reply({ text: 'Exported as PDF.' });
    await e.start();
    await waitFor(() => texts(d, msg.id).includes('Exported as PDF.'), 20_000, 'the resumed run');
    expect(JSON.stringify(model.requests.at(-1)!.messages.filter((m) => m.role === 'tool'))).toContain('PDF please');
  });
});
