import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleAdapter } from '../../adapters/console/console-adapter.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createMcpHub } from '../../src/composition/mcp-hub.js';
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
  const config = loadConfig({
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'test-key',
    DATABASE_PATH: join(dir, 'errand.db'),
  });
  const hub = createMcpHub({ servers: { diner: settings({ url: fixture.url }) }, logger: capturingLogger().logger });
  app = await createApp({
    config,
    adapters: [createConsoleAdapter({ input, output, timezone: 'UTC' })],
    clock: new FakeClock(),
    modelBackoffMs: () => 5,
    externalTools: hub,
  });
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
    at = await answer(
      '**Extras** (any of 1. Birthday cake, 2. Flowers (comma-separated)). Enter leaves it empty.',
      '1, flowers',
      at,
    );
    at = await answer(
      '• **Date**: Enter a date as YYYY-MM-DD.\nerrand (only you see this):\n  **Date** (a date, YYYY-MM-DD, required).',
      '2026-03-01',
      at,
    );
    await waitFor(() => printed.includes('Booked from the console.'), 10_000, 'the answer');
    expect(printed.slice(at)).toContain('Sent your answer to diner.');
    expect(toolResults(model.requests[1]!)).toEqual([
      {
        ok: true,
        content: JSON.stringify({
          action: 'accept',
          content: { party: 2, date: '2026-03-01', seating: 'out', vegetarian: false, extras: ['cake', 'flowers'] },
        }),
      },
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
    expect(toolResults(model.requests.at(-1)!).at(-1)).toEqual({
      ok: true,
      content: JSON.stringify({ action: 'decline', content: null }),
    });
  });
});

describe('MCP elicitation with piped console input', () => {
  it('a question asked once the input has ended is cancelled (nobody can answer), and the work finishes', async () => {
    const pipedDir = mkdtempSync(join(tmpdir(), 'errand-console-elicit-piped-'));
    const pipedModel = await startFakeOpenAI();
    const pipedIn = new PassThrough();
    const pipedOut = new PassThrough();
    let shown = '';
    pipedOut.on('data', (d: Buffer) => (shown += d.toString('utf8')));
    const config = loadConfig({
      OPENAI_BASE_URL: pipedModel.baseUrl,
      OPENAI_API_KEY: 'test-key',
      DATABASE_PATH: join(pipedDir, 'errand.db'),
    });
    const hub = createMcpHub({ servers: { diner: settings({ url: fixture.url }) }, logger: capturingLogger().logger });
    let closed = false;
    let piped: App | null = null;
    const adapter = createConsoleAdapter({
      input: pipedIn,
      output: pipedOut,
      timezone: 'UTC',
      onInputEnd: () => piped!.finishOpenWork([adapter.conversation]),
      onClose: () => (closed = true),
    });
    piped = await createApp({
      config,
      adapters: [adapter],
      clock: new FakeClock(),
      modelBackoffMs: () => 5,
      externalTools: hub,
    });
    try {
      await piped.start();
      pipedModel.reply(
        { toolCalls: [{ name: 'diner__pick_seating', arguments: {} }] },
        { text: 'No answer came, so no seat.' },
      );
      pipedIn.end('a seat please\n');
      await waitFor(() => closed, 10_000, 'the console to close after the work finished');
      expect(shown).toContain('No answer came, so no seat.');
      expect(shown).toContain('Cancelled: nobody can answer here any more');
      expect(toolResults(pipedModel.requests[1]!)).toEqual([
        { ok: true, content: JSON.stringify({ action: 'cancel', content: null }) },
      ]);
    } finally {
      await piped.stop();
      await pipedModel.close();
      rmSync(pipedDir, { recursive: true, force: true });
    }
  });
});

/** A console terminal of one process: what is typed in, what it printed. */
interface Terminal {
  readonly input: PassThrough;
  shown: string;
}

/** Types `line` at `term` once `prompt` shows after `from`, as a person would; returns where the prompt ended. */
async function typeAt(term: Terminal, prompt: string, line: string, from: number): Promise<number> {
  await waitFor(() => term.shown.indexOf(prompt, from) >= 0, 10_000, `the prompt ${prompt}`);
  term.input.write(`${line}\n`);
  return term.shown.indexOf(prompt, from) + prompt.length;
}

describe('MCP elicitation in the console across a restart', () => {
  let restartDir: string;
  let restartModel: FakeOpenAI;
  let running: App | null = null;
  /** One clock across the restarts, as the wall clock is. */
  const clock = new FakeClock();
  beforeAll(async () => {
    restartDir = mkdtempSync(join(tmpdir(), 'errand-console-elicit-restart-'));
    restartModel = await startFakeOpenAI();
  });
  // Each test is its own processes: the last one stops with it (two processes never share the SQLite file).
  afterEach(async () => {
    await running?.stop();
    running = null;
  });
  afterAll(async () => {
    await restartModel.close();
    rmSync(restartDir, { recursive: true, force: true });
  });

  /** A fresh process: its own terminal, console session and MCP connection, the same database. */
  async function start(piped?: { onClose: () => void }): Promise<Terminal> {
    const output = new PassThrough();
    const term: Terminal = { input: new PassThrough(), shown: '' };
    output.on('data', (d: Buffer) => (term.shown += d.toString('utf8')));
    const config = loadConfig({
      OPENAI_BASE_URL: restartModel.baseUrl,
      OPENAI_API_KEY: 'test-key',
      DATABASE_PATH: join(restartDir, 'errand.db'),
    });
    const hub = createMcpHub({ servers: { diner: settings({ url: fixture.url }) }, logger: capturingLogger().logger });
    // Piped: at the end of the input the work it started finishes, then the console closes (as main.ts wires it).
    const adapter = createConsoleAdapter({
      input: term.input,
      output,
      timezone: 'UTC',
      ...(piped ? { onInputEnd: () => running!.finishOpenWork([adapter.conversation]), onClose: piped.onClose } : {}),
    });
    running = await createApp({ config, adapters: [adapter], clock, modelBackoffMs: () => 5, externalTools: hub });
    await running.start();
    return term;
  }

  /** Asks for a seat, whose server asks where; Errand restarts while the question waits. Resolves with the new terminal. */
  async function restartedWhileAsking(
    after: string | null,
    tool = 'pick_seating',
  ): Promise<{ term: Terminal; asked: number }> {
    const before = await start();
    const call = { toolCalls: [{ name: `diner__${tool}`, arguments: { near: 'window' } }] };
    if (after === null) restartModel.reply(call);
    else restartModel.reply(call, { text: after });
    before.input.write('a seat by the window\n');
    await waitFor(() => before.shown.includes('2. Decline'), 10_000, 'the question');
    const asked = fixture.log.length;
    await running!.stop();
    running = null;
    return { term: await start(), asked };
  }

  it('a question waiting when Errand stops is put again when the console starts: one prompt per field, validated; the answer makes the call again and the server gets it', async () => {
    const { term, asked } = await restartedWhileAsking('Seated after the restart.');
    // Put again with its choices, though this console never saw it; the model was not asked anything again.
    let at = await typeAt(term, '> Where would you like to sit?', '1', 0);
    expect(term.shown.slice(at)).toMatch(/1\. Answer\n\s+2\. Decline/);
    at = await typeAt(term, '**seating** (one of 1. Indoors, 2. Terrace, required).', '3', at);
    at = await typeAt(term, 'Not sent yet:', '2', at);
    await waitFor(() => term.shown.includes('Seated after the restart.'), 10_000, 'the answer');
    expect(term.shown.slice(at)).toContain('Sent your answer to diner.');
    expect(fixture.log.slice(asked)).toEqual([{ action: 'accept', content: { seating: 'out' } }]);
    expect(toolResults(restartModel.requests[1]!).at(-1)).toEqual({
      ok: true,
      content: JSON.stringify({ action: 'accept', content: { seating: 'out' } }),
    });
    expect(restartModel.requests).toHaveLength(2);
  });

  it('declined after a restart: the call is not made again and the model is told', async () => {
    const { term, asked } = await restartedWhileAsking('No seat after all.');
    const seen = restartModel.requests.length;
    await typeAt(term, '> Where would you like to sit?', 'decline', 0);
    await waitFor(() => term.shown.includes('No seat after all.'), 10_000, 'the answer');
    expect(term.shown).toContain('Told diner you declined.');
    expect(fixture.log.length).toBe(asked);
    expect(toolResults(restartModel.requests[seen]!).at(-1)).toEqual({
      ok: false,
      error: expect.stringContaining('declined the question diner asked'),
    });
  });

  it('a link waiting when Errand stops is given again privately with Done, which accepts', async () => {
    const { term } = await restartedWhileAsking('Paid after the restart.', 'pay');
    const at = await typeAt(
      term,
      'The page diner asks you to open (only you see this): https://pay.example.com/deposit?id=42',
      '1',
      0,
    );
    expect(term.shown.slice(at)).toMatch(/1\. Done\n\s+2\. Decline/);
    await waitFor(() => term.shown.includes('Paid after the restart.'), 10_000, 'the answer');
    expect(toolResults(restartModel.requests.at(-1)!).at(-1)).toEqual({
      ok: true,
      content: JSON.stringify({ action: 'accept', content: null }),
    });
  });

  it('two questions carried over are put one after the other, the older first, each answer resuming its own run', async () => {
    // The model's replies in the order they are asked for: each run's call, then each run's answer.
    const { term: second } = await restartedWhileAsking(null);
    await waitFor(() => second.shown.includes('Where would you like to sit?'), 10_000, 'the carried-over question');
    // Not answered here; another request whose server asks too, then Errand restarts again.
    clock.advance(60_000);
    restartModel.reply(
      { toolCalls: [{ name: 'diner__confirm', arguments: {} }] },
      { text: 'Seat found.' },
      { text: 'Booking cancelled.' },
    );
    second.input.write('cancel my booking\n');
    await waitFor(() => second.shown.includes('Really cancel the booking?'), 10_000, 'the second question');
    await running!.stop();
    running = null;

    const third = await start();
    let at = await typeAt(third, '> Where would you like to sit?', '1', 0);
    expect(third.shown).not.toContain('Really cancel the booking?');
    at = await typeAt(third, '**seating**', '1', at);
    await waitFor(() => third.shown.includes('Seat found.'), 10_000, 'the first answer');
    at = await typeAt(third, '> Really cancel the booking?', '1', at);
    await waitFor(() => third.shown.includes('Booking cancelled.'), 10_000, 'the second answer');
    expect(toolResults(restartModel.requests.at(-1)!).at(-1)).toEqual({
      ok: true,
      content: JSON.stringify({ action: 'accept', content: {} }),
    });
  });

  it('a question asked while a carried-over one is on screen comes first; the carried-over one is put again once it is answered', async () => {
    const { term } = await restartedWhileAsking(null);
    await waitFor(() => term.shown.includes('Where would you like to sit?'), 10_000, 'the carried-over question');
    restartModel.reply(
      { toolCalls: [{ name: 'diner__confirm', arguments: {} }] },
      { text: 'Booking cancelled.' },
      { text: 'Seat found.' },
    );
    term.input.write('cancel my booking\n');
    let at = await typeAt(term, '> Really cancel the booking?', '1', 0);
    await waitFor(() => term.shown.includes('Booking cancelled.'), 10_000, 'the new question answered');
    at = await typeAt(term, '> Where would you like to sit?', '1', at);
    await typeAt(term, '**seating**', '2', at);
    await waitFor(() => term.shown.includes('Seat found.'), 10_000, 'the carried-over question answered');
    expect(toolResults(restartModel.requests.at(-1)!).at(-1)).toEqual({
      ok: true,
      content: JSON.stringify({ action: 'accept', content: { seating: 'out' } }),
    });
  });

  it('piped input that ends leaves a question carried over from an earlier session open, for a console that can answer it', async () => {
    const before = await start();
    restartModel.reply({ toolCalls: [{ name: 'diner__pick_seating', arguments: {} }] }, { text: 'Seated in the end.' });
    before.input.write('a seat by the window\n');
    await waitFor(() => before.shown.includes('2. Decline'), 10_000, 'the question');
    await running!.stop();
    let closed = false;
    const piped = await start({ onClose: () => (closed = true) });
    await waitFor(() => piped.shown.includes('Where would you like to sit?'), 10_000, 'the carried-over question');
    piped.input.end();
    await waitFor(() => closed, 10_000, 'the piped console to close');
    await running!.stop();

    const later = await start();
    const at = await typeAt(later, '> Where would you like to sit?', '1', 0);
    await typeAt(later, '**seating**', '2', at);
    await waitFor(() => later.shown.includes('Seated in the end.'), 10_000, 'the answer');
    expect(toolResults(restartModel.requests.at(-1)!).at(-1)).toEqual({
      ok: true,
      content: JSON.stringify({ action: 'accept', content: { seating: 'out' } }),
    });
  });
});
