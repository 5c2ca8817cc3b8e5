import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createMcpHub } from '../../src/composition/mcp-hub.js';
import { nextSnowflake, type FakeUser } from '../fakes/fake-discord.js';
import { startFakeOAuth, type FakeOAuth } from '../fakes/fake-oauth.js';
import { waitFor } from '../fakes/wait-for.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { capturingLogger } from '../fixtures/mcp/mcp-test-kit.js';
import { freePort } from '../support/free-port.js';
import { startDiscordErrand, until, type DiscordErrand } from './discord-harness.js';

const ACCOUNT = 'alice-private-account';
const MEMORY = 'Alice locker code is 4711-ZETA';
const ANSWER = `You are ${ACCOUNT}, and your locker code is 4711-ZETA.`;

let e: DiscordErrand | null = null;
let fake: FakeOAuth | null = null;
afterEach(async () => {
  await e?.close();
  await fake?.close();
  e = null;
  fake = null;
});

const secretIn = (text: string) => text.includes(ACCOUNT) || text.includes('4711');

describe('private stays private in a shared Discord thread (real discord.js, the OAuth fixture, recall)', () => {
  it("sends Alice's answer to her by DM with Share in thread / Keep private, keeps it out of Bob's model request and the thread; Keep private leaves only a note", async () => {
    fake = await startFakeOAuth();
    const port = await freePort();
    const env = {
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      WEB_PORT: String(port),
      ERRAND_SECRET_KEY: randomBytes(32).toString('base64'),
      ...errandFileEnv({ mcpServers: { linear: { url: fake.mcpUrl, auth: 'oauth' } } }),
    };
    const servers = loadConfig({ OPENAI_API_KEY: 'k', ...env }).file.settings.mcpServers;
    e = await startDiscordErrand(env, { externalTools: createMcpHub({ servers, logger: capturingLogger().logger }) });
    const d = e.discord;
    const bob: FakeUser = { id: nextSnowflake(), username: 'bob' };
    d.users.set(bob.id, bob);
    await e.app.store.memory.remember({
      scope: 'me',
      subject: `discord:${d.alice.id}`,
      text: MEMORY,
      createdBy: `discord:${d.alice.id}`,
    });

    e.model.reply(
      { toolCalls: [{ name: 'linear__sign_in', arguments: {} }] },
      {
        toolCalls: [
          { name: 'linear__whoami', arguments: {} },
          { name: 'recall', arguments: { query: 'locker code' } },
        ],
      },
      { text: ANSWER },
    );
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> who am I on linear, and what is my locker code?`);
    const dm = await until(() => d.dmChannelOf(d.alice.id), 10_000);
    const connect = await until(
      () => d.botMessagesIn(dm.id).find((m) => m.content.includes('connect your account')),
      10_000,
    );
    expect(
      (await fetch(await fake.consent(connect.content.match(/https?:\/\/\S+/)![0], { subject: ACCOUNT }))).status,
    ).toBe(200);

    // The answer reaches Alice by DM, with the two buttons; nothing of it is in any message others can read.
    const held = await until(() => d.botMessagesIn(dm.id).find((m) => m.content.includes('4711-ZETA')), 10_000);
    const customIds = JSON.stringify(held.components);
    expect(customIds).toContain('Share in thread');
    expect(customIds).toContain('Keep private');
    await e.app.coordinator.idle();
    // Every message others can read, and every post or edit that went to a channel other than her DM (the working note's step lines too).
    const everyPublic = () =>
      [
        ...[...d.messages.values()].filter((m) => m.channel_id !== dm.id).map((m) => m.content),
        ...d
          .callsTo('POST', /^\/channels\//)
          .concat(d.callsTo('PATCH', /^\/channels\//))
          .filter((c) => !c.path.includes(dm.id))
          .map((c) => JSON.stringify(c.body)),
      ].join('\n');
    expect(secretIn(everyPublic())).toBe(false);

    // Bob asks in the thread: his model request holds no trace of it.
    const before = e.model.requests.length;
    e.model.reply({ text: 'I cannot see what it said.' });
    d.userMessage(msg.id, 'what did it say?', bob);
    await waitFor(
      () => d.botMessagesIn(msg.id).some((m) => m.content === 'I cannot see what it said.'),
      10_000,
      "Bob's answer",
    );
    const bobs = e.model.requests.slice(before);
    expect(bobs).toHaveLength(1);
    expect(secretIn(JSON.stringify(bobs[0]!.messages))).toBe(false);
    expect(JSON.stringify(bobs[0]!.messages)).toContain(`(a result private to <@${d.alice.id}>)`);
    await e.app.coordinator.idle();

    // Bob cannot decide for her; she keeps it private: the thread is told so, without the answer.
    const keep = /"custom_id":"(errand:private:keep:\d+)"/.exec(customIds)![1]!;
    const refused = d.clickButton(held.id, keep, bob);
    await until(() => refused.responses.length > 0, 10_000);
    expect(refused.responses[0]!.content).toContain(`Only <@${d.alice.id}> can share this answer`);
    const click = d.clickButton(held.id, keep);
    await until(() => click.responses.length > 0, 10_000);
    expect(click.responses[0]!.content).toContain('Kept private');
    await waitFor(
      () => d.botMessagesIn(msg.id).some((m) => m.content.includes(`<@${d.alice.id}> kept an answer private`)),
      10_000,
      'the note in the thread',
    );
    expect(secretIn(everyPublic())).toBe(false);
  });
});
