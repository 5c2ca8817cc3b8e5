import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createConsoleAdapter } from '../../adapters/console/console-adapter.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { errandFileEnv } from '../fixtures/errand-file.js';

interface ConsoleErrand {
  app: App;
  model: FakeOpenAI;
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

/** Errand in the console adapter (real readline on piped streams) with a configuration file; the clock reads 09:00 UTC. */
async function start(settings: Record<string, unknown>): Promise<ConsoleErrand> {
  const dir = mkdtempSync(join(tmpdir(), 'errand-console-'));
  const model = await startFakeOpenAI();
  model.usageWith(() => ({ promptTokens: 700, completionTokens: 300 }));
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
  const app = await createApp({
    config,
    adapters: [createConsoleAdapter({ input, output, timezone: 'UTC' })],
    clock: new FakeClock(),
    modelBackoffMs: () => 5,
  });
  await app.start();
  running = { app, model, dir };
  return { app, model, type: (line) => void input.write(`${line}\n`), printed: () => printed };
}

describe('token budgets in the console', () => {
  it('a run past tokensPerRun stops with a note', async () => {
    const c = await start({ limits: { tokensPerRun: 1500 } });
    c.model.reply(
      { toolCalls: [{ name: 'send_update', arguments: { text: 'Looking.' } }] },
      { toolCalls: [{ name: 'send_update', arguments: { text: 'Still looking.' } }] },
    );
    c.type('dig through everything');
    await waitFor(() =>
      c.printed().includes('🪙 I stopped: this run used 2,000 tokens, past its budget of 1,500 tokens per run.'),
    );
    expect(c.printed()).toContain('Still looking.');
    expect(c.model.requests).toHaveLength(2);
  });

  it('a request past tokensPerUserPerDay is refused privately with the time it resets (15 h from 09:00 UTC)', async () => {
    const c = await start({ limits: { tokensPerUserPerDay: 1000 } });
    c.model.reply({ text: 'First answer.' });
    c.type('first question');
    await waitFor(() => c.printed().includes('First answer.'));
    await c.app.coordinator.idle();
    c.type('second question');
    await waitFor(() => c.printed().includes('errand (only you see this)'));
    expect(c.printed()).toContain(
      "🪙 You've used your daily budget of 1,000 tokens (1,000 today), so I can't take this request. It resets at 00:00 UTC, in 15 h.",
    );
    expect(c.model.requests).toHaveLength(1);
  });

  it('a request past tokensPerDay is refused privately', async () => {
    const c = await start({ limits: { tokensPerDay: 1000 } });
    c.model.reply({ text: 'First answer.' });
    c.type('first question');
    await waitFor(() => c.printed().includes('First answer.'));
    await c.app.coordinator.idle();
    c.type('second question');
    await waitFor(() =>
      c
        .printed()
        .includes(
          "🪙 Today's token budget for everyone here (1,000 tokens) is used up, so I can't take this request. It resets at 00:00 UTC, in 15 h.",
        ),
    );
    expect(c.model.requests).toHaveLength(1);
  });

  it('/usage shows your tokens, the limits and, for an admin, everyone; /help lists it', async () => {
    const c = await start({
      access: { admins: ['console:you'] },
      limits: { tokensPerUserPerDay: 10_000, tokensPerRun: 5000 },
    });
    c.model.reply({ text: 'Answered.' });
    c.type('a question');
    await waitFor(() => c.printed().includes('Answered.'));
    await c.app.coordinator.idle();
    c.type('/usage');
    await waitFor(() => c.printed().includes('Top user'));
    const out = c.printed();
    expect(out).toContain('**Your usage**: today 1,000 tokens (prompt 700 / completion 300), last 30 days 1,000.');
    expect(out).toContain('• Per person per day: 10,000 — 9,000 left today');
    expect(out).toContain('• Per run: 5,000');
    expect(out).toContain('Daily budgets reset at 00:00 UTC, in 15 h.');
    expect(out).toContain('**Everyone**: today 1,000 tokens (prompt 700 / completion 300), last 30 days 1,000.');
    expect(out).toContain('1. `console:you` — 1,000 (today 1,000)');
    c.type('/help');
    await waitFor(() => c.printed().includes('/usage` — your model tokens'));
  });
});
