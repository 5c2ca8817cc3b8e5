import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { freePort } from '../support/free-port.js';

const oauthServer = { linear: { url: 'https://mcp.linear.app/mcp', auth: 'oauth' } };
const secrets = () => ({
  OPENAI_API_KEY: 'k',
  PUBLIC_URL: 'https://errand.example.com',
  ERRAND_SECRET_KEY: randomBytes(32).toString('hex'),
});

describe('per-person OAuth at start-up', () => {
  it("refuses WEB_PORT on the Slack HTTP receiver's port, naming both", () => {
    const slack = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_MODE: 'http', SLACK_SIGNING_SECRET: 's', SLACK_PORT: '3100' };
    expect(() => loadConfig({ ...secrets(), ...slack, ...errandFileEnv({ mcpServers: oauthServer }) })).toThrow(
      /WEB_PORT: 3100 is also SLACK_PORT/,
    );
    // Socket Mode listens on no port, and without an OAuth server WEB_PORT is not used: both start.
    expect(() =>
      loadConfig({
        ...secrets(),
        ...slack,
        SLACK_MODE: 'socket',
        SLACK_APP_TOKEN: 'xapp-1',
        ...errandFileEnv({ mcpServers: oauthServer }),
      }),
    ).not.toThrow();
    expect(() => loadConfig({ ...secrets(), ...slack, ...errandFileEnv({ mcpServers: {} }) })).not.toThrow();
  });

  it("refuses WEB_PORT on the Slack HTTP receiver's port when the web console would listen there (admins listed), rather than let Slack fail to start", () => {
    const slack = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_MODE: 'http', SLACK_SIGNING_SECRET: 's', SLACK_PORT: '3100' };
    const admins = { access: { admins: ['slack:U0ADMIN01'] } };
    expect(() => loadConfig({ ...secrets(), ...slack, ...errandFileEnv(admins) })).toThrow(
      /WEB_PORT: 3100 is also SLACK_PORT, where the Slack HTTP receiver listens\. The web console \(\/admin\) needs a port of its own/,
    );
    expect(() => loadConfig({ ...secrets(), ...slack, WEB_PORT: '3200', ...errandFileEnv(admins) })).not.toThrow();
    expect(() =>
      loadConfig({ ...secrets(), ...slack, SLACK_MODE: 'socket', SLACK_APP_TOKEN: 'xapp-1', ...errandFileEnv(admins) }),
    ).not.toThrow();
  });

  it('the app serves the sign-in endpoint on WEB_PORT from start to stop when a server uses OAuth', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'errand-oauth-'));
    const port = await freePort();
    const config = loadConfig({
      ...secrets(),
      WEB_PORT: String(port),
      DATABASE_PATH: join(dir, 'errand.db'),
      ...errandFileEnv({ mcpServers: oauthServer }),
    });
    const app = await createApp({ config, adapters: [] });
    const metadata = `http://127.0.0.1:${port}/oauth/client-metadata.json`;
    try {
      await expect(fetch(metadata)).rejects.toThrow();
      await app.start();
      const doc = (await (await fetch(metadata)).json()) as Record<string, unknown>;
      expect(doc).toMatchObject({ redirect_uris: ['https://errand.example.com/oauth/callback'] });
    } finally {
      await app.stop();
      rmSync(dir, { recursive: true, force: true });
    }
    await expect(fetch(metadata)).rejects.toThrow();
  });
});
