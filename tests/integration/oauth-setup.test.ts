import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { closeDatabase, openDatabase } from '../../src/db/client.js';
import { silentLogger } from '../../src/logger.js';
import { oauthServersOf, startOAuth } from '../../src/sign-in/mcp/oauth-setup.js';
import { OAUTH_PATHS } from '../../src/sign-in/mcp/oauth-web-server.js';
import { createSqliteStore } from '../../src/composition/sqlite-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { errandFileEnv } from '../fixtures/errand-file.js';

const servers = {
  linear: { url: 'https://mcp.linear.app/mcp', auth: 'oauth' },
  off: { url: 'https://off.example.com/mcp', auth: 'oauth', disabled: true },
  docs: { url: 'https://docs.example.com/mcp' },
  files: { command: 'npx' },
};

describe('starting per-person OAuth from the configuration', () => {
  it('serves the sign-in endpoint only for enabled servers with auth "oauth"', async () => {
    const env = {
      OPENAI_API_KEY: 'k',
      PUBLIC_URL: 'https://errand.example.com',
      ERRAND_SECRET_KEY: randomBytes(32).toString('hex'),
      WEB_PORT: '0',
      ...errandFileEnv({ mcpServers: servers }),
    };
    const config = loadConfig(env);
    expect(oauthServersOf(config.file.settings.mcpServers).map((s) => s.name)).toEqual(['linear']);
    const db = openDatabase(':memory:');
    const clock = new FakeClock();
    const oauth = await startOAuth({
      config,
      store: createSqliteStore(db, clock).connections,
      clock,
      logger: silentLogger(),
      host: '127.0.0.1',
      onConnected: () => {},
    });
    try {
      expect(oauth?.connections.has('linear')).toBe(true);
      expect(oauth?.connections.has('docs')).toBe(false);
      const doc = (await (
        await fetch(`http://127.0.0.1:${oauth!.web!.port}/oauth/client-metadata.json`)
      ).json()) as Record<string, unknown>;
      expect(doc).toMatchObject({
        client_id: 'https://errand.example.com/oauth/client-metadata.json',
        redirect_uris: ['https://errand.example.com/oauth/callback'],
      });
      expect((await fetch(`http://127.0.0.1:${oauth!.web!.port}/elsewhere`)).status).toBe(404);
    } finally {
      await oauth?.close();
      closeDatabase(db);
    }
  });

  it('keeps a PUBLIC_URL path in the redirect and the client metadata, and answers under it as well as at the root (a proxy that keeps or strips the path)', async () => {
    const env = {
      OPENAI_API_KEY: 'k',
      PUBLIC_URL: 'https://example.com/tools/errand/',
      ERRAND_SECRET_KEY: randomBytes(32).toString('hex'),
      WEB_PORT: '0',
      ...errandFileEnv({ mcpServers: servers }),
    };
    const config = loadConfig(env);
    expect(config.PUBLIC_URL).toBe('https://example.com/tools/errand');
    const db = openDatabase(':memory:');
    const clock = new FakeClock();
    const oauth = await startOAuth({
      config,
      store: createSqliteStore(db, clock).connections,
      clock,
      logger: silentLogger(),
      host: '127.0.0.1',
      onConnected: () => {},
    });
    try {
      const base = `http://127.0.0.1:${oauth!.web!.port}`;
      for (const path of ['/oauth/client-metadata.json', '/tools/errand/oauth/client-metadata.json']) {
        const doc = (await (await fetch(`${base}${path}`)).json()) as Record<string, unknown>;
        expect(doc).toMatchObject({
          client_id: 'https://example.com/tools/errand/oauth/client-metadata.json',
          client_uri: 'https://example.com/tools/errand',
          redirect_uris: ['https://example.com/tools/errand/oauth/callback'],
        });
      }
      // The callback under the path is the sign-in route (an unknown state is refused by its page, not a 404).
      const callback = await fetch(`${base}/tools/errand/oauth/callback?state=unknown&code=x`);
      expect(callback.status).toBe(400);
      expect(await callback.text()).toContain('This link is not valid');
      expect((await fetch(`${base}/tools/other/oauth/callback?state=unknown`)).status).toBe(404);
    } finally {
      await oauth?.close();
      closeDatabase(db);
    }
  });

  it('hands its routes over instead of listening when they are mounted on another server', async () => {
    const env = {
      OPENAI_API_KEY: 'k',
      PUBLIC_URL: 'https://errand.example.com',
      ERRAND_SECRET_KEY: randomBytes(32).toString('hex'),
      ...errandFileEnv({ mcpServers: servers }),
    };
    const config = loadConfig(env);
    const db = openDatabase(':memory:');
    const clock = new FakeClock();
    const oauth = await startOAuth({
      config,
      store: createSqliteStore(db, clock).connections,
      clock,
      logger: silentLogger(),
      onConnected: () => {},
      listen: false,
    });
    const host = createServer((req, res) =>
      OAUTH_PATHS.includes(new URL(req.url ?? '/', 'http://x').pathname)
        ? oauth!.routes(req, res)
        : res.writeHead(200).end('slack'),
    );
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    try {
      expect(oauth?.web).toBeNull();
      const base = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
      expect((await fetch(`${base}/oauth/client-metadata.json`)).status).toBe(200);
      expect(await (await fetch(`${base}/slack/events`)).text()).toBe('slack');
      expect((await fetch(`${base}/oauth/callback?state=nope`)).status).toBe(400);
    } finally {
      host.close();
      await oauth?.close();
      closeDatabase(db);
    }
  });

  it('refuses WEB_PORT on the metrics port when a server uses OAuth', () => {
    const env = {
      OPENAI_API_KEY: 'k',
      PUBLIC_URL: 'https://e.example',
      ERRAND_SECRET_KEY: randomBytes(32).toString('hex'),
      METRICS_PORT: '3100',
      ...errandFileEnv({ mcpServers: servers }),
    };
    expect(() => loadConfig(env)).toThrow(/WEB_PORT: 3100 is also METRICS_PORT/);
  });

  it('starts nothing when no server uses OAuth', async () => {
    const config = loadConfig({ OPENAI_API_KEY: 'k', ...errandFileEnv({ mcpServers: { docs: servers.docs } }) });
    const db = openDatabase(':memory:');
    const clock = new FakeClock();
    expect(
      await startOAuth({
        config,
        store: createSqliteStore(db, clock).connections,
        clock,
        logger: silentLogger(),
        onConnected: () => {},
      }),
    ).toBeNull();
    closeDatabase(db);
  });
});
