import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordAdapter, discordOptionsFromConfig } from '../../adapters/discord/create-discord-adapter.js';
import { createApp, type App } from '../../src/app.js';
import { silentLogger } from '../../src/logger.js';
import { loadMonitoring } from '../../src/metrics/load-monitoring.js';
import type { Monitoring } from '../../src/metrics/monitoring.js';
import { trafficCounter } from '../../src/metrics/traffic-counter.js';
import { FakeClock } from '../fakes/fake-clock.js';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import type { FakeOpenAI } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { startDiscordWorld, TEST_TUNING } from './discord-harness.js';
import { parseExposition, type Exposition } from './prometheus-text.js';
import { sqliteDb } from '../fakes/sqlite-db.js';

interface Monitored {
  app: App;
  monitoring: Monitoring;
  discord: FakeDiscord;
  model: FakeOpenAI;
  url(path: string): string;
  close(): Promise<void>;
}

/** Errand as main.ts builds it with METRICS_PORT set: discord.js on a fake Discord, the openai SDK on a fake model. */
async function startMonitored(): Promise<Monitored> {
  const world = await startDiscordWorld({ METRICS_PORT: '0' });
  const { config, discord, model } = world;
  const monitoring = await loadMonitoring({
    port: config.METRICS_PORT!,
    host: config.METRICS_HOST,
    logger: silentLogger(),
  });
  const adapter = createDiscordAdapter({
    ...discordOptionsFromConfig(config),
    tuning: TEST_TUNING,
    traffic: trafficCounter(monitoring.metrics, 'discord'),
  });
  const app = await createApp({
    config,
    adapters: [adapter],
    clock: new FakeClock(),
    modelBackoffMs: () => 5,
    monitoring,
  });
  await app.start();
  return {
    app,
    monitoring,
    discord,
    model,
    url: (path) => `http://127.0.0.1:${monitoring.port()}${path}`,
    async close() {
      await app.stop();
      await world.close();
    },
  };
}

async function scrape(m: Monitored): Promise<Exposition> {
  const res = await fetch(m.url('/metrics'));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await res.text());
}

async function health(m: Monitored): Promise<{
  status: number;
  body: {
    status: string;
    problems: string[];
    database: { writable: boolean };
    platforms: Record<string, { connected: boolean; detail?: string }>;
  };
}> {
  const res = await fetch(m.url('/healthz'));
  return { status: res.status, body: (await res.json()) as never };
}

let m: Monitored | null = null;
afterEach(async () => {
  await m?.close();
  m = null;
});

describe('/metrics', () => {
  it('counts runs that complete, fail and are stopped, model time and tokens, traffic and 429s, in valid exposition format', async () => {
    m = await startMonitored();
    const { discord: fake, model } = m;
    model.usageWith(() => ({ promptTokens: 120, completionTokens: 30 }));
    const mention = (text: string) => fake.userMessage(fake.general.id, `<@${fake.bot.id}> ${text}`);

    // Completes; its thread answers the first post with a 429, which discord.js waits out.
    model.reply({ text: 'All done.' });
    const first = mention('say hi');
    fake.forceRateLimit(first.id);
    await waitFor(() => fake.botMessagesIn(first.id).some((x) => x.content.includes('All done.')), 10_000);

    // Fails: the endpoint refuses the request (not transient, so no retry).
    model.reply({ status: 400, error: 'bad request' });
    const second = mention('break please');
    await waitFor(() => fake.botMessagesIn(second.id).length > 0 && m!.app.coordinator.inFlight === 0, 10_000);

    // Stopped while the model request hangs; the gauge sees it running first.
    model.reply({ hang: true });
    const third = mention('take forever');
    await waitFor(() => model.hanging() === 1, 10_000);
    expect((await scrape(m)).value('errand_runs_active')).toBe(1);
    fake.userMessage(third.id, 'stop');
    await waitFor(() => m!.app.coordinator.inFlight === 0, 10_000);
    // The stop notice leaves through the outbox after the run ended: counted once it is on the platform.
    await waitFor(() => fake.botMessagesIn(third.id).some((x) => x.content.includes('Stopped')), 10_000);

    const metrics = (await waitFor(async () => {
      const e = await scrape(m!);
      return e.value('errand_model_request_duration_seconds_count') === model.requests.length ? e : null;
    }, 10_000))!;
    expect(metrics.value('errand_runs_total', { outcome: 'completed' })).toBe(1);
    expect(metrics.value('errand_runs_total', { outcome: 'failed' })).toBe(1);
    expect(metrics.value('errand_runs_total', { outcome: 'cancelled' })).toBe(1);
    expect(metrics.value('errand_run_duration_seconds_count')).toBe(3);
    expect(model.requests).toHaveLength(3);
    expect(metrics.value('errand_model_tokens_total', { kind: 'prompt' })).toBe(120);
    expect(metrics.value('errand_model_tokens_total', { kind: 'completion' })).toBe(30);
    // Three mentions and the "stop"; the bot's own echoed messages never reach the core.
    expect(metrics.value('errand_inbound_events_total', { platform: 'discord' })).toBe(4);
    const accepted = fake.callsTo('POST', /^\/channels\/\d+\/messages$/).filter((c) => c.status === 200).length;
    expect(metrics.value('errand_outbound_messages_total', { platform: 'discord' })).toBe(accepted);
    expect(fake.stats.rateLimited).toBeGreaterThanOrEqual(1);
    expect(metrics.value('errand_platform_rate_limited_total', { platform: 'discord' })).toBe(fake.stats.rateLimited);
    expect(metrics.value('errand_runs_active')).toBe(0);
    expect(metrics.value('errand_tasks_pending')).toBe(0);
    for (const name of ['errand_run_duration_seconds', 'errand_model_request_duration_seconds'])
      expect(metrics.types.get(name)).toBe('histogram');
    expect(metrics.types.get('errand_schedule_fires_total')).toBe('counter');
    expect(metrics.value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(metrics.types.has('nodejs_heap_size_used_bytes')).toBe(true);
  }, 60_000);

  it('answers 404 for other paths', async () => {
    m = await startMonitored();
    expect((await fetch(m.url('/'))).status).toBe(404);
    expect((await fetch(m.url('/metrics'), { method: 'POST' })).status).toBe(405);
  });
});

describe('/healthz', () => {
  it('is 200 while connected, 503 naming Discord while the gateway is down, and 200 again once it resumes', async () => {
    m = await startMonitored();
    const up = await health(m);
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({
      status: 'ok',
      problems: [],
      database: { writable: true },
      platforms: { discord: { connected: true } },
    });

    m.discord.dropGateway();
    const down = (await waitFor(async () => {
      const h = await health(m!);
      return h.status === 503 ? h : null;
    }, 10_000))!;
    expect(down.body.status).toBe('unhealthy');
    expect(down.body.platforms.discord!.connected).toBe(false);
    expect(down.body.problems).toEqual([expect.stringMatching(/^discord is not connected \(gateway \w+\)$/)]);
    expect(down.body.database.writable).toBe(true);

    m.discord.restoreGateway();
    await waitFor(async () => (await health(m!)).status === 200, 20_000);
    expect(m.discord.stats.resumes).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it('is 503 when the database cannot be written', async () => {
    m = await startMonitored();
    sqliteDb(m.app.store).$client.close();
    const h = await health(m);
    expect(h.status).toBe(503);
    expect(h.body.database.writable).toBe(false);
    expect(h.body.problems).toEqual(['the database connection is closed']);
  });
});
