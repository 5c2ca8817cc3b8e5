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
  await running?.app.coordinator.idle();
  await running?.app.stop();
  await running?.model.close();
  if (running) rmSync(running.dir, { recursive: true, force: true });
  running = null;
});

/** Errand in the console adapter (real readline on piped streams) with an `access` block in its configuration file. */
async function start(access: Record<string, unknown>): Promise<ConsoleErrand> {
  const dir = mkdtempSync(join(tmpdir(), 'errand-console-'));
  const model = await startFakeOpenAI();
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
    ...errandFileEnv({ access }),
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

const NOT_LISTED =
  "Sorry, you're not on the list of people who can use Errand here. Ask an admin of this workspace if you need access.";

describe('access rules in the console', () => {
  it('with users not listing console:you, a request is refused privately once, and /tasks too; the model is never asked', async () => {
    const c = await start({ users: ['slack:U0ALICE01'] });
    c.type('hello');
    await waitFor(() => c.printed().includes(NOT_LISTED));
    expect(c.printed()).toContain('errand (only you see this)');
    c.type('hello again');
    c.type('/tasks');
    await waitFor(() => c.printed().split(NOT_LISTED).length === 3, 5000, 'the refusal of /tasks');
    expect(c.model.requests).toHaveLength(0);
    expect(await c.app.tasks.get(1)).toBeNull();
  });

  it('with console:you listed, it answers', async () => {
    const c = await start({ users: ['console:you'] });
    c.model.reply({ text: 'Hello from the console.' });
    c.type('hello');
    await waitFor(() => c.printed().includes('Hello from the console.'));
    expect(c.printed()).not.toContain('Sorry');
    expect(c.model.requests).toHaveLength(1);
  });
});
