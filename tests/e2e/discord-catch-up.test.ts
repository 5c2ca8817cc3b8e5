import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordAdapter, discordOptionsFromConfig } from '../../adapters/discord/create-discord-adapter.js';
import { createApp, type App } from '../../src/app.js';
import { loadErrandFile } from '../../src/settings/errand-file.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { nextSnowflake, type FakeDiscord, type FakeUser } from '../fakes/fake-discord.js';
import type { RecordedRequest } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { startDiscordWorld, TEST_TUNING } from './discord-harness.js';

/** Errand on Discord that stops and starts again on the same database, the fakes kept; `env` as for startDiscordWorld. */
async function restartableErrand(env: Parameters<typeof startDiscordWorld>[0] = {}) {
  const world = await startDiscordWorld(env);
  const { discord, model } = world;
  const clock = new FakeClock(Date.now());
  let app: App | null = null;
  const handle = {
    discord,
    model,
    app: () => app!,
    async start() {
      // A restarted process reads the configuration file (ERRAND_CONFIG) again.
      const config = {
        ...world.config,
        file: loadErrandFile({ ...(world.config.ERRAND_CONFIG ? { ERRAND_CONFIG: world.config.ERRAND_CONFIG } : {}) })
          .file,
      };
      app = await createApp({
        config,
        adapters: [createDiscordAdapter({ ...discordOptionsFromConfig(config), tuning: TEST_TUNING })],
        clock,
        modelBackoffMs: () => 5,
      });
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

/** What the bot posted in a channel or thread, the "Working…" notice (there or not, by timing) left out. */
const texts = (d: FakeDiscord, channelId: string) =>
  d
    .botMessagesIn(channelId)
    .map((m) => m.content)
    .filter((t) => !t.startsWith('⏳ Working'));
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
    model.respondWith((r) => ({
      text: lastUserText(r).includes('breaking changes') ? 'Breaking changes listed.' : 'Release notes drafted.',
    }));
    await e.start();
    await waitFor(
      () => texts(d, msg.id).includes('Breaking changes listed.'),
      20_000,
      'the answer to the missed message',
    );
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

type Restartable = Awaited<ReturnType<typeof restartableErrand>>;

/** `author` asks the bot in `channelId` and the run waits for an answer (open work, so the restart catches up); then Errand stops. Returns the conversation's channel. */
async function questionThenStop(
  r: Restartable,
  ask: (text: string) => { id: string; channel_id: string },
  inThread: boolean,
): Promise<string> {
  const { discord: d, model } = r;
  model.reply({ toolCalls: [{ name: 'ask_user', arguments: { question: 'Which format?' } }] });
  const msg = ask('export the report');
  const where = inThread ? msg.id : msg.channel_id;
  await waitFor(() => texts(d, where).some((t) => t.includes('Which format?')), 10_000, 'the question');
  await r.app().coordinator.idle();
  await r.stop();
  return where;
}

const dmOff = "Sorry, Errand doesn't take direct messages here.";

describe('Discord catch-up keeps what the live path carries (direct, roles, files)', () => {
  it('a DM sent while Errand was down is judged as a DM: with directMessages "off" it gets the one refusal, not an answer', async () => {
    const env = errandFileEnv({ access: { directMessages: 'open' } });
    e = await restartableErrand(env);
    const { discord: d, model } = e;
    const dm = await questionThenStop(e, (t) => d.directMessage(t), false);

    writeFileSync(env.ERRAND_CONFIG, JSON.stringify({ access: { directMessages: 'off' } }));
    d.directMessage('PDF please');
    const asked = model.requests.length;
    await e.start();
    await waitFor(
      () => texts(d, dm).some((t) => t.includes(dmOff)) || model.requests.length > asked,
      10_000,
      'the refusal or an answer',
    );
    await e.app().coordinator.idle();
    expect(model.requests).toHaveLength(asked);
    expect(texts(d, dm).filter((t) => !t.includes('Which format?'))).toEqual([
      `<@${d.alice.id}> ${dmOff} Mention it in a channel where it is enabled.`,
    ]);
  });

  it('with directMessages "allowlist", a listed person\'s DM caught up after a restart is answered (not refused as a channel outside `channels`)', async () => {
    e = await restartableErrand((fake) =>
      errandFileEnv({
        access: {
          directMessages: 'allowlist',
          users: [`discord:${fake.alice.id}`],
          channels: [`discord:${fake.general.id}`],
        },
      }),
    );
    const { discord: d, model } = e;
    const dm = await questionThenStop(e, (t) => d.directMessage(t), false);

    d.directMessage('PDF please');
    model.reply({ text: 'Exported as PDF.' });
    await e.start();
    await waitFor(
      () => texts(d, dm).some((t) => t === 'Exported as PDF.' || t.includes('Sorry')),
      10_000,
      'the resumed run in the DM',
    );
    expect(texts(d, dm).filter((t) => !t.includes('Which format?'))).toEqual(['Exported as PDF.']);
    expect(JSON.stringify(model.requests.at(-1)!.messages.filter((m) => m.role === 'tool'))).toContain('PDF please');
  });

  it('a person allowed only by a role is answered after a restart: the roles come from a guild member read, REST messages carry none', async () => {
    let bob: FakeUser | null = null;
    e = await restartableErrand((fake) => {
      const helpers = fake.addRole('helpers').id;
      bob = { id: nextSnowflake(), username: 'bob', roles: [helpers] };
      fake.users.set(bob.id, bob);
      return errandFileEnv({ access: { users: [`discord:role:${helpers}`] } });
    });
    const { discord: d, model } = e;
    const thread = await questionThenStop(e, (t) => d.userMessage(d.general.id, `<@${d.bot.id}> ${t}`, bob!), true);

    d.userMessage(thread, 'PDF please', bob!);
    model.reply({ text: 'Exported as PDF.' });
    await e.start();
    await waitFor(
      () => texts(d, thread).some((t) => t === 'Exported as PDF.' || t.includes('Sorry')),
      10_000,
      'the resumed run',
    );
    expect(texts(d, thread).filter((t) => !t.includes('Which format?'))).toEqual(['Exported as PDF.']);
    expect(d.callsTo('GET', new RegExp(`^/guilds/${d.guildId}/members/${bob!.id}$`))).toHaveLength(1);
  });

  it('a file on a thread message sent while Errand was down reaches the model', async () => {
    e = await restartableErrand();
    const { discord: d, model } = e;
    model.reply({ hang: true });
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> draft the release notes`);
    await waitFor(() => model.hanging() === 1, 10_000, 'the model request');
    await e.stop();

    d.userMessage(msg.id, 'use these notes', d.alice, [
      { name: 'notes.md', contentType: 'text/markdown', bytes: Buffer.from('- ship the aubergine feature\n') },
    ]);
    const sawFile = (r: RecordedRequest) => JSON.stringify(r.messages).includes('ship the aubergine feature');
    model.respondWith((r) => ({
      text: lastUserText(r).includes('use these notes')
        ? sawFile(r)
          ? 'Read your notes.'
          : 'No notes seen.'
        : 'Release notes drafted.',
    }));
    await e.start();
    await waitFor(
      () => texts(d, msg.id).some((t) => t === 'Read your notes.' || t === 'No notes seen.'),
      10_000,
      'the answer to the missed message',
    );
    expect(texts(d, msg.id)).toContain('Read your notes.');
    expect(d.attachmentDownloads).toHaveLength(1);
  });
});
