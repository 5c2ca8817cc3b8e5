import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createConsoleAdapter } from '../../adapters/console/console-adapter.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger, type Logger } from '../../src/logger.js';
import { loadMonitoring } from '../../src/metrics/load-monitoring.js';
import type { Monitoring } from '../../src/metrics/monitoring.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { capturingLogger } from '../fixtures/mcp/mcp-test-kit.js';
import { parseExposition } from './prometheus-text.js';

interface ConsoleErrand {
  app: App;
  model: FakeOpenAI;
  monitoring: Monitoring | null;
  type(line: string): void;
  printed(): string;
}

let running: { app: App; model: FakeOpenAI; dir: string } | null = null;
afterEach(async () => {
  await running?.app.stop();
  await running?.model.close();
  if (running) rmSync(running.dir, { recursive: true, force: true });
  running = null;
});

/**
 * Prices a thousand times OpenAI's, so each answer's cost reads plainly: every answer reports 700 prompt tokens
 * (200 of them cached) and 300 completion tokens of the default model, gpt-4o-mini: 500 × $0.001 + 200 × $0.0005
 * + 300 × $0.004 = $1.80.
 */
const PRICING = { 'gpt-4o-mini': { inputPerMTok: 1000, outputPerMTok: 4000, cachedInputPerMTok: 500 } };

/** Errand in the console adapter (real readline on piped streams) with a configuration file; the clock reads 09:00 UTC. */
async function start(
  settings: Record<string, unknown>,
  options: { logger?: Logger; metrics?: boolean } = {},
): Promise<ConsoleErrand> {
  const dir = mkdtempSync(join(tmpdir(), 'errand-console-'));
  const model = await startFakeOpenAI();
  model.usageWith(() => ({ promptTokens: 700, completionTokens: 300, cachedTokens: 200 }));
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = '';
  output.on('data', (d: Buffer) => {
    printed += d.toString('utf8');
  });
  const config = loadConfig({
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'test-key',
    DATABASE_PATH: join(dir, 'errand.db'),
    ...errandFileEnv(settings),
  });
  const monitoring = options.metrics
    ? await loadMonitoring({ port: 0, host: '127.0.0.1', logger: silentLogger() })
    : null;
  const app = await createApp({
    config,
    adapters: [createConsoleAdapter({ input, output, timezone: 'UTC' })],
    clock: new FakeClock(),
    modelBackoffMs: () => 5,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(monitoring ? { monitoring } : {}),
  });
  await app.start();
  running = { app, model, dir };
  return { app, model, monitoring, type: (line) => void input.write(`${line}\n`), printed: () => printed };
}

describe('dollar budgets and /usage in dollars, in the console', () => {
  it('a run that costs more than usdPerRun stops with a note in dollars', async () => {
    const c = await start({ pricing: PRICING, limits: { usdPerRun: 3 } });
    c.model.reply(
      { toolCalls: [{ name: 'send_update', arguments: { text: 'Looking.' } }] },
      { toolCalls: [{ name: 'send_update', arguments: { text: 'Still looking.' } }] },
    );
    c.type('dig through everything');
    await waitFor(() => c.printed().includes('🪙 I stopped: this run cost $3.60, past its budget of $3.00 per run.'));
    expect(c.model.requests).toHaveLength(2);
  });

  it('a request past usdPerUserPerDay is refused privately with the time it resets', async () => {
    const c = await start({ pricing: PRICING, limits: { usdPerUserPerDay: 1.5 } });
    c.model.reply({ text: 'First answer.' });
    c.type('first question');
    await waitFor(() => c.printed().includes('First answer.'));
    await c.app.coordinator.idle();
    c.type('second question');
    await waitFor(() => c.printed().includes('errand (only you see this)'));
    expect(c.printed()).toContain(
      "🪙 You've used your daily budget of $1.50 ($1.80 today), so I can't take this request. It resets at 00:00 UTC, in 15 h.",
    );
    expect(c.model.requests).toHaveLength(1);
  });

  it('a request past usdPerDay is refused privately', async () => {
    const c = await start({ pricing: PRICING, limits: { usdPerDay: 1 } });
    c.model.reply({ text: 'First answer.' });
    c.type('first question');
    await waitFor(() => c.printed().includes('First answer.'));
    await c.app.coordinator.idle();
    c.type('second question');
    await waitFor(() => c.printed().includes("🪙 Today's spending budget for everyone here ($1.00) is used up"));
    expect(c.model.requests).toHaveLength(1);
  });

  it('/usage shows dollars beside tokens and, for an admin, per person and per model; /metrics counts the dollars per model', async () => {
    const c = await start(
      { access: { admins: ['console:you'] }, pricing: PRICING, limits: { usdPerUserPerDay: 10 } },
      { metrics: true },
    );
    c.model.reply({ text: 'Answered.' });
    c.type('a question');
    await waitFor(() => c.printed().includes('Answered.'));
    await c.app.coordinator.idle();
    c.type('/usage');
    await waitFor(() => c.printed().includes('By model'));
    const out = c.printed();
    expect(out).toContain(
      '**Your usage**: today 1,000 tokens (prompt 700 / completion 300) · $1.80, last 30 days 1,000 · $1.80.',
    );
    expect(out).toContain('• Per person per day: $10.00 — $8.20 left today');
    expect(out).toContain('1. `console:you` — 1,000 · $1.80 (today 1,000)');
    expect(out).toContain('• `gpt-4o-mini` — 1,000 tokens (prompt 700, 200 cached / completion 300) · $1.80');
    const body = await (await fetch(`http://127.0.0.1:${c.monitoring!.port()}/metrics`)).text();
    expect(parseExposition(body).value('errand_cost_usd_total', { model: 'gpt-4o-mini' })).toBeCloseTo(1.8, 10);
  });

  it('warns at start-up about a model in use without a price, and not when every model has one', async () => {
    const warned = capturingLogger();
    await start(
      {
        pricing: { 'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10 } },
        channels: { 'console:console': { model: 'gpt-4o' } },
      },
      { logger: warned.logger },
    );
    expect(warned.lines.filter((l) => l.level === 40).map((l) => l.msg)).toContainEqual(
      expect.stringContaining('no price in the configuration file\'s "pricing" for "gpt-4o-mini"'),
    );
    await running!.app.stop();
    await running!.model.close();
    rmSync(running!.dir, { recursive: true, force: true });
    running = null;
    const quiet = capturingLogger();
    await start({ pricing: PRICING }, { logger: quiet.logger });
    expect(quiet.text()).not.toContain('no price');
  });
});
