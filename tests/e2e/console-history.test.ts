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
import { readMessages } from './history-results.js';

let app: App | null = null;
let model: FakeOpenAI | null = null;
let dir = '';
afterEach(async () => {
  await app?.stop();
  await model?.close();
  rmSync(dir, { recursive: true, force: true });
  app = null;
  model = null;
});

describe('history tools in the console', () => {
  it("read_thread and read_channel read the session's own transcript: what the user typed and what the bot printed", async () => {
    dir = mkdtempSync(join(tmpdir(), 'errand-console-'));
    model = await startFakeOpenAI();
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
    });
    app = await createApp({
      config,
      adapters: [createConsoleAdapter({ input, output, timezone: 'UTC' })],
      clock: new FakeClock(),
      modelBackoffMs: () => 5,
    });
    await app.start();

    model.reply({ text: 'Noted: 42.' });
    input.write('remember the number 42\n');
    await waitFor(() => printed.includes('Noted: 42.'));
    await app.coordinator.idle();
    model.reply(
      {
        toolCalls: [
          { name: 'read_thread', arguments: {} },
          { name: 'read_channel', arguments: { limit: 2 } },
        ],
      },
      { text: 'It was 42.' },
    );
    input.write('which number was it?\n');
    await waitFor(() => printed.includes('It was 42.'));

    const tools = model.requests[2]!.messages.filter((m) => m.role === 'tool');
    expect(tools).toHaveLength(2);
    const thread = readMessages({ ...model.requests[2]!, messages: [tools[0]!] });
    expect(thread.map((m) => [m.author, m.text, m.self ?? false])).toEqual([
      ['you', 'remember the number 42', false],
      ['Errand', 'Noted: 42.', true],
      ['you', 'which number was it?', false],
    ]);
    const channel = readMessages(model.requests[2]!);
    expect(channel.map((m) => m.text)).toEqual(['Noted: 42.', 'which number was it?']);
  });
});
