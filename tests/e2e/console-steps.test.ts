import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleAdapter } from '../../adapters/console/console-adapter.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';

let model: FakeOpenAI;
let app: App;
let dir: string;
const input = new PassThrough();
const output = new PassThrough();
let printed = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'errand-console-steps-'));
  model = await startFakeOpenAI();
  output.on('data', (d: Buffer) => (printed += d.toString('utf8')));
  const config = loadConfig({
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'test-key',
    DATABASE_PATH: join(dir, 'errand.db'),
  });
  app = await createApp({
    config,
    adapters: [createConsoleAdapter({ input, output, timezone: 'UTC' })],
    clock: new FakeClock(),
    modelBackoffMs: () => 5,
  });
  await app.start();
});
afterAll(async () => {
  await app.stop();
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a run's steps in the console", () => {
  it('prints a line when each tool call starts and when it ends, before the answer', async () => {
    model.reply(
      { toolCalls: [{ id: 'call_1', name: 'read_thread', arguments: '{}' }] },
      { toolCalls: [{ id: 'call_2', name: 'no_such_tool', arguments: '{}' }] },
      { text: 'All read.' },
    );
    input.write('read what we said\n');
    await waitFor(() => printed.includes('All read.'), 10_000, 'the answer');
    await app.coordinator.idle();
    const lines = printed
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => /^(⚙️|✅|❌)/.test(l));
    expect(lines).toEqual([
      '⚙️ Reading the thread',
      '✅ Reading the thread',
      '⚙️ Running no_such_tool',
      expect.stringMatching(/^❌ Running no_such_tool — .+/),
    ]);
    expect(printed.indexOf('✅ Reading the thread')).toBeLessThan(printed.indexOf('All read.'));
  });
});
