import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleAdapter } from '../../adapters/console/console-adapter.js';
import { createApp, type App } from '../../src/app.js';
import { conversationKey } from '../../src/chat/conversation-ref.js';
import { loadConfig } from '../../src/config.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { gate } from '../integration/harness.js';
import { startErrandProcess, type ErrandProcess } from './errand-process.js';

let model: FakeOpenAI;
let dir: string;
let errand: ErrandProcess | null = null;
let app: App | null = null;

beforeEach(async () => {
  model = await startFakeOpenAI();
  dir = mkdtempSync(join(tmpdir(), 'errand-piped-'));
});

afterEach(async () => {
  await errand?.kill();
  errand = null;
  await app?.stop();
  app = null;
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Resolves once the model has received `count` requests; fails at once if the process exits first. */
async function modelAsked(run: ErrandProcess, count: number): Promise<void> {
  let asked = false;
  const exitedFirst = run.exited().then((code) => {
    if (!asked)
      throw new Error(
        `Errand exited (${code}) before the model was asked ${count} time(s); it printed:\n${run.output()}`,
      );
  });
  try {
    await Promise.race([waitFor(() => model.requests.length >= count, 20_000, `model request ${count}`), exitedFirst]);
  } finally {
    asked = true;
  }
}

describe('the console with piped input', () => {
  it('finishes the runs the input started, prints their answers, and exits 0 at the end of input (a real process)', async () => {
    const first = gate();
    model.reply({ text: 'Hello from the model.', gate: first.promise }, { text: 'Second answer.' });
    // printf 'hello\nand one more thing\n' | ERRAND_CONSOLE=on npm start
    errand = startErrandProcess(
      {
        ERRAND_CONSOLE: 'on',
        OPENAI_BASE_URL: model.baseUrl,
        OPENAI_API_KEY: 'test-key',
        DATABASE_PATH: join(dir, 'errand.db'),
      },
      { stdin: 'pipe' },
    );
    errand.child.stdin!.end('hello\nand one more thing\n');
    // The input has ended while the first answer is still being written.
    await modelAsked(errand, 1);
    first.open();
    expect(await errand.exited()).toBe(0);
    expect(errand.output()).toContain('Hello from the model.');
    expect(errand.output()).toContain('Second answer.');
    expect(model.requests).toHaveLength(2);
  });

  it('stops a run that asks a question once the input has ended, says why, then closes', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = '';
    output.on('data', (d: Buffer) => (printed += d.toString('utf8')));
    let closed = false;
    const config = loadConfig({
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: 'test-key',
      DATABASE_PATH: join(dir, 'errand.db'),
    });
    const adapter = createConsoleAdapter({
      input,
      output,
      timezone: 'UTC',
      onInputEnd: () => app!.finishOpenWork([adapter.conversation]),
      onClose: () => (closed = true),
    });
    app = await createApp({ config, adapters: [adapter], clock: new FakeClock(), modelBackoffMs: () => 5 });
    await app.start();
    model.reply({
      toolCalls: [{ name: 'ask_user', arguments: { question: 'Which city do you mean?', options: ['Paris', 'Rome'] } }],
    });

    input.end('what is the weather there?\n');
    await waitFor(() => closed, 10_000, 'the console to close');
    expect(printed).toContain('Which city do you mean?');
    expect(printed.indexOf('Which city do you mean?')).toBeLessThan(
      printed.indexOf('The input has ended, so nobody can answer this question: I stopped the request.'),
    );
    const conversationId = conversationKey(adapter.conversation);
    expect(await app.runs.active(conversationId)).toBeNull();
    expect(await app.tasks.list(conversationId)).toEqual([expect.objectContaining({ status: 'cancelled' })]);
    expect(model.requests).toHaveLength(1);
  });
});
