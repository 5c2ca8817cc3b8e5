import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOAuth, type FakeOAuth } from '../fakes/fake-oauth.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { freePort } from '../support/free-port.js';
import { startDiscordErrand, until, type DiscordErrand } from './discord-harness.js';

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
});
