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
import { count, startSharedFixtureServer, toolResults, writeStep, type SharedFixtureServer } from './mcp-e2e-kit.js';

let server: SharedFixtureServer;
let model: FakeOpenAI;
let app: App;
let dir: string;
const input = new PassThrough();
const output = new PassThrough();
let printed = '';

beforeAll(async () => {
  server = await startSharedFixtureServer();
  dir = mkdtempSync(join(tmpdir(), 'errand-console-mcp-'));
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
    externalTools: server.tools,
  });
  await app.start();
});
afterAll(async () => {
  await app.stop();
  await model.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('MCP tools in the console', () => {
  it('prints the approval with numbered choices; typing "allow" runs the tool and the model gets its result', async () => {
    model.reply(writeStep('from-console'), { text: 'Saved from the console.' });
    input.write('save the plan "from-console"\n');
    await waitFor(() => printed.includes('Approval needed'), 10_000, 'the approval prompt');
    expect(printed).toContain('I want to run `notes__write_note`');
    expect(printed).toMatch(/1\. Allow once\n\s+2\. Always allow here\n\s+3\. Deny/);
    await app.coordinator.idle();
    expect(count(server.events(), 'wrote plan=from-console')).toBe(0);

    input.write('allow\n');
    await waitFor(() => printed.includes('Saved from the console.'), 10_000, 'the answer');
    expect(count(server.events(), 'wrote plan=from-console')).toBe(1);
    expect(toolResults(model.requests[1]!)).toEqual([{ ok: true, content: 'saved plan' }]);
    expect(printed).toContain('✅ Allowed once by @you.');
    expect(printed).not.toContain('<@you>');
  });

  it('choosing "3" (Deny) by number keeps the tool from running', async () => {
    await app.coordinator.idle();
    model.reply(writeStep('denied-in-console'), { text: 'Not saved.' });
    input.write('save the plan "denied-in-console"\n');
    // The first approval was printed twice already (posted, then edited with the decision): wait for this one's own text.
    await waitFor(() => printed.includes('"text": "denied-in-console"'), 10_000, 'the second approval prompt');
    await app.coordinator.idle();
    input.write('3\n');
    await waitFor(() => printed.includes('Not saved.'), 10_000, 'the answer');
    expect(count(server.events(), 'wrote plan=denied-in-console')).toBe(0);
    expect(toolResults(model.requests.at(-1)!).at(-1)).toEqual({ ok: false, error: 'The user denied this tool call.' });
  });

  it('a result whose structuredContent repeats its text reaches the model with the text once', async () => {
    await app.coordinator.idle();
    const text = 'The meeting moved to Thursday at 10:00; bring the Q3 numbers.';
    model.reply({ toolCalls: [{ name: 'notes__summary', arguments: {} }] }, { text: 'It moved to Thursday.' });
    input.write('when is the meeting?\n');
    await waitFor(() => printed.includes('It moved to Thursday.'), 10_000, 'the answer');
    const request = model.requests.at(-1)!;
    expect(toolResults(request).at(-1)).toEqual({ ok: true, content: text });
    expect(JSON.stringify(request.messages).split(text).length - 1).toBe(1);
  });
});
