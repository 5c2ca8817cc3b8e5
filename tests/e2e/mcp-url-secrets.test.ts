import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordAdapter, discordOptionsFromConfig } from '../../adapters/discord/create-discord-adapter.js';
import { createApp, type App } from '../../src/app.js';
import { createMcpHub, type McpHub } from '../../src/composition/mcp-hub.js';
import { loadMonitoring } from '../../src/metrics/load-monitoring.js';
import type { Monitoring } from '../../src/metrics/monitoring.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { waitFor } from '../fakes/wait-for.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp/http-fixture-server.js';
import { capturingLogger } from '../fixtures/mcp/mcp-test-kit.js';
import { startDiscordWorld, TEST_TUNING, type DiscordWorld } from './discord-harness.js';
import { toolResults } from './mcp-e2e-kit.js';

/** The secrets errand.json takes from the environment. */
const SECRETS = { DOCS_API_KEY: 'qk_7f3a9c1e5b2d', DOCS_PATH_KEY: 'pk-2d8e6b4a0c9f', DOCS_PASSWORD: 'pw.9c1e5b7f3a6e' };
const secretForms = Object.values(SECRETS).flatMap((s) => [s, encodeURIComponent(s)]);
/** The secrets a text holds, in any of their forms; empty when it holds none. */
const leaks = (text: string) => secretForms.filter((s) => text.includes(s));

interface Running {
  readonly world: DiscordWorld;
  readonly fixture: HttpFixture;
  readonly hub: McpHub;
  /** The MCP hub's clock: restarts after a crash wait on it. */
  readonly hubClock: FakeClock;
  readonly app: App;
  readonly monitoring: Monitoring;
  readonly logText: () => string;
  readonly configDir: string;
}

let running: Running | null = null;
afterEach(async () => {
  const r = running;
  running = null;
  if (!r) return;
  await r.app.stop();
  await r.fixture.close();
  await r.world.close();
  rmSync(r.configDir, { recursive: true, force: true });
});

/**
 * Errand as main.ts builds it from an errand.json whose server URLs hold secrets from the environment — one in
 * the query, one in a path segment, one as the userinfo's password — with /healthz served and every log line kept.
 */
async function startErrand(): Promise<Running> {
  const fixture = await startHttpFixture({ mode: 'streamable', paths: ['/mcp', `/s/${SECRETS.DOCS_PATH_KEY}/mcp`] });
  const configDir = mkdtempSync(join(tmpdir(), 'errand-url-secrets-'));
  const configPath = join(configDir, 'errand.json');
  const server = (url: string) => ({ url, approval: 'never' });
  writeFileSync(
    configPath,
    JSON.stringify({
      mcpServers: {
        byQuery: server(`${fixture.origin}/mcp?api_key=\${DOCS_API_KEY}`),
        byPath: server(`${fixture.origin}/s/\${DOCS_PATH_KEY}/mcp`),
        withLogin: server(fixture.origin.replace('//', '//errand:${DOCS_PASSWORD}@') + '/mcp'),
      },
    }),
  );
  const world = await startDiscordWorld({ METRICS_PORT: '0', ERRAND_CONFIG: configPath, ...SECRETS });
  const log = capturingLogger();
  const hubClock = new FakeClock();
  const hub = createMcpHub({
    servers: world.config.file.settings.mcpServers,
    logger: log.logger,
    clock: hubClock,
    backoff: () => 1000,
  });
  const monitoring = await loadMonitoring({
    port: world.config.METRICS_PORT!,
    host: world.config.METRICS_HOST,
    logger: log.logger,
  });
  const adapter = createDiscordAdapter({ ...discordOptionsFromConfig(world.config), tuning: TEST_TUNING });
  const app = await createApp({
    config: world.config,
    adapters: [adapter],
    clock: new FakeClock(),
    modelBackoffMs: () => 5,
    monitoring,
    externalTools: hub,
    logger: log.logger,
  });
  await app.start();
  return {
    world,
    fixture,
    hub,
    hubClock,
    app,
    monitoring,
    configDir,
    logText: () => log.lines.map((l) => JSON.stringify(l)).join('\n'),
  };
}

async function healthBody(r: Running): Promise<string> {
  return (await fetch(`http://127.0.0.1:${r.monitoring.port()}/healthz`)).text();
}

const reasons = (r: Running) => Object.fromEntries(r.hub.status().map((s) => [s.name, s.reason]));

describe('an MCP server URL with secrets in it', () => {
  it('is shown without its query, its userinfo and the path segments a ${VAR} filled in: to the model, in /healthz and in the logs', async () => {
    running = await startErrand();
    const r = running;
    const origin = r.fixture.origin;
    expect(r.hub.status().map((s) => [s.name, s.state])).toEqual([
      ['byQuery', 'connected'],
      ['byPath', 'connected'],
      ['withLogin', 'failed'],
    ]);
    // fetch refuses a URL with credentials, quoting the whole URL in its message.
    expect(reasons(r).withLogin).toBe(
      `Request cannot be constructed from a URL that includes credentials: ${origin}/mcp`,
    );

    // The server's routes go away: every request answers 404 "Cannot POST <path>".
    await r.fixture.unmount();
    const { discord, model } = r.world;
    model.reply(
      {
        toolCalls: [
          { name: 'byQuery__echo', arguments: { text: 'one' } },
          { name: 'byPath__echo', arguments: { text: 'two' } },
        ],
      },
      { text: 'Both are down.' },
    );
    const msg = discord.userMessage(discord.general.id, `<@${discord.bot.id}> echo twice`);
    await waitFor(
      () => discord.botMessagesIn(msg.id).some((m) => m.content.includes('Both are down.')),
      10_000,
      'the answer',
    );
    const crashed = (name: string, url: string) =>
      `The MCP server "${name}" stopped while running ${name}__echo (it crashed: HTTP 404 from ${url}); it is being restarted. Try again later or do without it.`;
    expect(toolResults(model.requests[1]!)).toEqual([
      { ok: false, error: crashed('byQuery', `${origin}/mcp`) },
      { ok: false, error: crashed('byPath', `${origin}/s/•••/mcp`) },
    ]);
    const whileNotFound = await healthBody(r);
    expect(JSON.parse(whileNotFound)).toMatchObject({
      mcp: [
        { name: 'byQuery', state: 'restarting', reason: `HTTP 404 from ${origin}/mcp` },
        { name: 'byPath', state: 'restarting', reason: `HTTP 404 from ${origin}/s/•••/mcp` },
        {
          name: 'withLogin',
          state: 'failed',
          reason: `Request cannot be constructed from a URL that includes credentials: ${origin}/mcp`,
        },
      ],
    });

    // Then nothing listens there any more: the restarts cannot reach it.
    await r.fixture.close();
    // A first attempt may meet a kept-alive socket the server just closed ("fetch failed"); the next one is refused.
    await waitFor(
      () => {
        r.hubClock.advance(1000);
        return reasons(r).byPath?.startsWith('cannot reach') && reasons(r).byQuery?.startsWith('cannot reach');
      },
      10_000,
      'the failed restarts',
    );
    const whileUnreachable = await healthBody(r);
    expect(JSON.parse(whileUnreachable)).toMatchObject({
      mcp: [
        { name: 'byQuery', reason: `cannot reach ${origin}/mcp (ECONNREFUSED)` },
        { name: 'byPath', reason: `cannot reach ${origin}/s/•••/mcp (ECONNREFUSED)` },
        { name: 'withLogin' },
      ],
    });
    model.reply({ toolCalls: [{ name: 'byPath__echo', arguments: { text: 'three' } }] }, { text: 'Still down.' });
    discord.userMessage(msg.id, `<@${discord.bot.id}> once more`);
    await waitFor(
      () => discord.botMessagesIn(msg.id).some((m) => m.content.includes('Still down.')),
      10_000,
      'the second answer',
    );
    expect(toolResults(model.requests[3]!).at(-1)).toEqual({
      ok: false,
      error: `The MCP server "byPath" is not running (it crashed: cannot reach ${origin}/s/•••/mcp (ECONNREFUSED)); it is being restarted. Try again later or do without it.`,
    });

    // Every form the secrets could leave in: what the model got, what /healthz said, every log line.
    expect(r.logText()).toMatch(/Cannot POST \/s\/•••\/mcp/);
    expect(leaks(JSON.stringify(model.requests))).toEqual([]);
    expect(leaks(whileNotFound + whileUnreachable)).toEqual([]);
    expect(leaks(r.logText())).toEqual([]);
  }, 60_000);
});
