import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createMcpHub } from '../../src/composition/mcp-hub.js';
import { directMessageRefusedNote } from '../../src/outbox/secret-notice.js';
import { nextSnowflake, type FakeUser } from '../fakes/fake-discord.js';
import { startFakeOAuth, type FakeOAuth } from '../fakes/fake-oauth.js';
import { waitFor } from '../fakes/wait-for.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { capturingLogger } from '../fixtures/mcp/mcp-test-kit.js';
import { freePort } from '../support/free-port.js';
import { startDiscordErrand, until, type DiscordErrand } from './discord-harness.js';
import { toolResults } from './mcp-e2e-kit.js';

let e: DiscordErrand | null = null;
let fake: FakeOAuth | null = null;
afterEach(async () => {
  await e?.close();
  await fake?.close();
  e = null;
  fake = null;
});

describe('/connections on Discord', () => {
  it('is registered, lists nothing before a sign-in and maps the disconnect option to `disconnect <server>`', async () => {
    fake = await startFakeOAuth();
    const port = await freePort();
    e = await startDiscordErrand({
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      WEB_PORT: String(port),
      ERRAND_SECRET_KEY: randomBytes(32).toString('base64'),
      ...errandFileEnv({ mcpServers: { linear: { url: fake.mcpUrl, auth: 'oauth' } } }),
    });
    const d = e.discord;
    const ask = async (options: unknown[]) => {
      const use = d.slashCommand('connections', d.general.id, options);
      await until(() => use.responses.length === 1);
      expect(use.responses[0]!.ephemeral).toBe(true);
      return use.responses[0]!.content;
    };
    expect(await ask([])).toContain('You have not connected any MCP server yet.');
    expect(await ask([{ name: 'disconnect', type: 3, value: 'linear' }])).toBe('You have no connection to **linear**.');
    expect(await ask([{ name: 'disconnect', type: 3, value: 'notion' }])).toContain('There is no MCP server "notion"');
  });

  it('a Connect link goes by DM (never into the public thread); the run waits; connecting through it resumes the call with her token', async () => {
    const { e, fake } = await startWithLinear();
    const d = e.discord;
    e.model.reply(
      { toolCalls: [{ name: 'linear__sign_in', arguments: {} }] },
      { toolCalls: [{ name: 'linear__whoami', arguments: {} }] },
      { text: 'You are ana.' },
    );
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> what is on my linear board?`);
    const dm = await until(() => d.dmChannelOf(d.alice.id), 10_000);
    const notice = await until(
      () => d.botMessagesIn(dm.id).find((m) => m.content.includes('connect your account')),
      10_000,
    );
    const link = notice.content.match(/https?:\/\/\S+/)![0];
    expect(new URL(link).origin).toBe(fake.issuer);
    expect(d.callsTo('POST', /^\/users\/@me\/channels$/).map((c) => c.body)).toEqual([{ recipient_id: d.alice.id }]);
    // The thread says the run waits for her; no link is in any public message.
    await waitFor(
      () => d.botMessagesIn(msg.id).some((m) => m.content.includes('Waiting for you to connect')),
      10_000,
      'the waiting note',
    );
    const everyPublic = [...d.messages.values()]
      .filter((m) => m.channel_id !== dm.id)
      .map((m) => m.content)
      .join('\n');
    expect(everyPublic).not.toContain(fake.issuer);
    expect(e.model.requests).toHaveLength(1);

    expect((await fetch(await fake.consent(link, { subject: 'ana' }))).status).toBe(200);
    await waitFor(
      () => d.botMessagesIn(msg.id).some((m) => m.content === 'You are ana.'),
      10_000,
      'the answer with her token',
    );
    expect(toolResults(e.model.requests[2]!).at(-1)).toEqual({ ok: true, content: 'ana' });
    // The note that she is connected also went to her privately.
    await until(() => d.botMessagesIn(dm.id).find((m) => m.content.startsWith('Connected')), 10_000);
  });

  it('a person whose DMs are closed (Discord 50007) is told in the thread that the DM failed and how to fix it, never shown the link', async () => {
    const { e, fake } = await startWithLinear();
    const d = e.discord;
    const bob: FakeUser = { id: nextSnowflake(), username: 'bob', dmsClosed: true };
    d.users.set(bob.id, bob);
    e.model.reply({ toolCalls: [{ name: 'linear__sign_in', arguments: {} }] }, { text: 'Going on without linear.' });
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> check linear`, bob);
    const refused = await until(
      () => d.botMessagesIn(msg.id).find((m) => m.content.includes('could not send you a private message')),
      10_000,
    );
    expect(refused.content).toBe(`<@${bob.id}> ${directMessageRefusedNote}`);
    expect(d.callsTo('POST', /^\/channels\/\d+\/messages$/).some((c) => c.status === 403)).toBe(true);
    const everyPublic = [...d.messages.values()].map((m) => m.content).join('\n');
    expect(everyPublic).not.toContain(fake.issuer);
    // The run waits; his reply ends the wait (he can open his DMs and ask again).
    await e.app.coordinator.idle();
    d.userMessage(msg.id, 'never mind', bob);
    await waitFor(
      () => d.botMessagesIn(msg.id).some((m) => m.content === 'Going on without linear.'),
      10_000,
      'the answer',
    );
    expect(toolResults(e.model.requests[1]!).at(-1)).toEqual({
      ok: false,
      error: expect.stringContaining(`${bob.id} has not connected linear`),
    });
  });
});

/**
 * Errand on the Discord fake with the `linear` OAuth server in front of the fake authorization server; its results are
 * marked public, since sign-in is the subject here (what stays private: tests/e2e/discord-private-thread.test.ts).
 */
async function startWithLinear(): Promise<{ e: DiscordErrand; fake: FakeOAuth }> {
  fake = await startFakeOAuth();
  const port = await freePort();
  const env = {
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    WEB_PORT: String(port),
    ERRAND_SECRET_KEY: randomBytes(32).toString('base64'),
    ...errandFileEnv({ mcpServers: { linear: { url: fake.mcpUrl, auth: 'oauth', visibility: 'public' } } }),
  };
  const servers = loadConfig({ OPENAI_API_KEY: 'k', ...env }).file.settings.mcpServers;
  e = await startDiscordErrand(env, { externalTools: createMcpHub({ servers, logger: capturingLogger().logger }) });
  return { e, fake };
}
