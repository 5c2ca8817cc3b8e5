import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleAdapter } from '../../adapters/console/console-adapter.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createMcpHub } from '../../src/mcp/mcp-hub.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { startElicitFixture, type ElicitFixture } from '../fixtures/mcp/elicit-fixture-server.js';
import { capturingLogger, settings } from '../fixtures/mcp/mcp-test-kit.js';
import { toolResults } from './mcp-e2e-kit.js';

let fixture: ElicitFixture;
let model: FakeOpenAI;
let app: App;
let dir: string;
const input = new PassThrough();
const output = new PassThrough();
let printed = '';

beforeAll(async () => {
  fixture = await startElicitFixture();
  dir = mkdtempSync(join(tmpdir(), 'errand-console-elicit-'));
  model = await startFakeOpenAI();
  output.on('data', (d: Buffer) => (printed += d.toString('utf8')));
  const config = loadConfig({ OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'test-key', DATABASE_PATH: join(dir, 'errand.db') });
  const hub = createMcpHub({ servers: { diner: settings({ url: fixture.url }) }, logger: capturingLogger().logger });
  app = await createApp({ config, adapters: [createConsoleAdapter({ input, output, timezone: 'UTC' })], clock: new FakeClock(), modelBackoffMs: () => 5, externalTools: hub });
  await app.start();
});
afterAll(async () => {
  await app.stop();
  await model.close();
  await fixture.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Types a line once `prompt` has been printed (after the `from` printed so far), as a person at the terminal would. */
async function answer(prompt: string, line: string, from: number): Promise<number> {
  await waitFor(() => printed.indexOf(prompt, from) >= 0, 10_000, `the prompt ${prompt}`);
  const at = printed.indexOf(prompt, from) + prompt.length;
  input.write(`${line}\n`);
  return at;
}

describe('MCP elicitation in the console', () => {
  it('asks one field at a time (Enter keeps the default), asks again what is wrong, and sends the form', async () => {
    model.reply({ toolCalls: [{ name: 'diner__book_table', arguments: {} }] }, { text: 'Booked from the console.' });
    input.write('book me a table\n');
    let at = await answer('> Which table should I book?', '', 0);
    expect(printed.slice(at)).toMatch(/1\. Answer\n\s+2\. Decline/);
    at = await answer('2. Decline', '1', at);
    at = await answer('**Party size** (a whole number from 1 up to 12, required). Enter keeps 2.', '', at);
    at = await answer('**Date** (a date, YYYY-MM-DD, required).', '2026-13-01', at);
    at = await answer('**Seating** (one of 1. Indoors, 2. Terrace). Enter keeps Indoors.', '2', at);
    at = await answer('**Vegetarian menu** (yes or no). Enter keeps no.', '', at);
    at = await answer('**Note** (text, at most 20 characters). Enter leaves it empty.', '', at);
    at = await answer('**Extras** (any of 1. Birthday cake, 2. Flowers (comma-separated)). Enter leaves it empty.', '1, flowers', at);
    at = await answer('• **Date**: Enter a date as YYYY-MM-DD.\nerrand (only you see this):\n  **Date** (a date, YYYY-MM-DD, required).', '2026-03-01', at);
    await waitFor(() => printed.includes('Booked from the console.'), 10_000, 'the answer');
    expect(printed.slice(at)).toContain('Sent your answer to diner.');
    expect(toolResults(model.requests[1]!)).toEqual([
      { ok: true, content: JSON.stringify({ action: 'accept', content: { party: 2, date: '2026-03-01', seating: 'out', vegetarian: false, extras: ['cake', 'flowers'] } }) },
    ]);
  });

  it('typing 2 (Decline) declines', async () => {
    await app.coordinator.idle();
    model.reply({ toolCalls: [{ name: 'diner__pick_seating', arguments: {} }] }, { text: 'No seat then.' });
    const from = printed.length;
    input.write('a seat please\n');
    await answer('> Where would you like to sit?', '', from);
    await answer('2. Decline', '2', from);
    await waitFor(() => printed.includes('No seat then.'), 10_000, 'the answer');
    expect(toolResults(model.requests.at(-1)!).at(-1)).toEqual({ ok: true, content: JSON.stringify({ action: 'decline', content: null }) });
  });
});
