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
import { FakeKeyboard, FakeTerminal } from '../fakes/fake-terminal.js';
import { waitFor } from '../fakes/wait-for.js';

let running: { app: App; model: FakeOpenAI; dir: string } | null = null;
afterEach(async () => {
  await running?.app.stop();
  await running?.model.close();
  if (running) rmSync(running.dir, { recursive: true, force: true });
  running = null;
});

/** Errand in the console adapter through the real app, the adapter and the runtime on one fake clock. */
async function start(
  input: PassThrough,
  output: NodeJS.WritableStream & { isTTY?: boolean; columns?: number },
  env: Record<string, string> = {},
) {
  const dir = mkdtempSync(join(tmpdir(), 'errand-console-tty-'));
  const model = await startFakeOpenAI();
  const clock = new FakeClock();
  const config = loadConfig({
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'test-key',
    DATABASE_PATH: join(dir, 'errand.db'),
    ...env,
  });
  const adapter = createConsoleAdapter({ input, output: output as never, timezone: 'UTC', clock, env: {} });
  const app = await createApp({ config, adapters: [adapter], clock, modelBackoffMs: () => 5 });
  await app.start();
  running = { app, model, dir };
  return { app, model, clock };
}

function gate() {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const lastLines = (term: FakeTerminal, n: number) => term.screen().slice(-n);

describe('the console on a terminal', () => {
  it('shows the elapsed time under the prompt, prints the rendered answer above it with an end marker, and keeps half-typed input', async () => {
    const term = new FakeTerminal(80);
    const keys = new FakeKeyboard();
    const { model, clock } = await start(keys, term);
    const answer = gate();
    model.reply({
      text: '# Release plan\n\nShip **today**, after [the checks](https://example.com/ci):\n\n- tag it\n- push it\n\n```sh\ngit push --tags\n```',
      gate: answer.promise,
    });

    keys.type('plan the release\r');
    await waitFor(() => lastLines(term, 1)[0] === '… working (0 s) — type stop to stop', 10_000, 'the working line');
    expect(lastLines(term, 3)).toEqual(['> plan the release', '>', '… working (0 s) — type stop to stop']);

    clock.advance(12_000);
    await waitFor(() => lastLines(term, 1)[0] === '… working (12 s) — type stop to stop', 10_000, 'the elapsed time');
    keys.type('next thi');
    await waitFor(() => lastLines(term, 2)[0] === '> next thi', 10_000, 'the typed text');

    answer.open();
    await waitFor(() => term.screen().includes('── done in 12 s ──'), 10_000, 'the end marker');
    const screen = term.screen();
    expect(screen.slice(-2)).toEqual(['── done in 12 s ──', '> next thi']);
    expect(term.cursor()).toEqual({ row: screen.length - 1, col: '> next thi'.length });
    const reply = screen.slice(screen.indexOf('errand:'), -2);
    expect(reply).toContain('  Release plan');
    expect(reply).toContain('    * tag it');
    expect(reply).toContain('    * push it');
    expect(reply).toContain('    git push --tags');
    expect(reply.join('\n')).toContain('the checks');
    expect(reply.join('\n')).toContain('https://example.com/ci');
    expect(reply.join('\n')).not.toMatch(/\*\*|```|^ *#/m);
    expect(screen.filter((l) => l.startsWith('>'))).toEqual(['> plan the release', '> next thi']);
    expect(screen.some((l) => l.includes('working'))).toBe(false);
    expect(term.raw).toContain('\u001b[1mtoday\u001b[22m');
  });

  it('keeps input that wraps past the edge whole while the status line ticks, and wraps the answer under its indent', async () => {
    const term = new FakeTerminal(40);
    const keys = new FakeKeyboard();
    const { model, clock } = await start(keys, term);
    const answer = gate();
    model.reply({ text: 'Done: the follow-up is queued and will run next.', gate: answer.promise });
    keys.type('go\r');
    await waitFor(() => lastLines(term, 1)[0] === '… working (0 s) — type stop to stop', 10_000, 'the working line');
    const long = 'a follow-up that is longer than one row of this narrow terminal';
    keys.type(long);
    clock.advance(3_000);
    await waitFor(() => lastLines(term, 1)[0] === '… working (3 s) — type stop to stop', 10_000, 'the tick');
    expect(lastLines(term, 4)).toEqual([
      '> go',
      `> ${long.slice(0, 38)}`,
      long.slice(38),
      '… working (3 s) — type stop to stop',
    ]);
    answer.open();
    await waitFor(() => term.screen().includes('── done in 3 s ──'), 10_000, 'the end marker');
    expect(lastLines(term, 6)).toEqual([
      'errand:',
      '  Done: the follow-up is queued and will',
      '  run next.',
      '── done in 3 s ──',
      `> ${long.slice(0, 38)}`,
      long.slice(38),
    ]);
  });

  it('cuts the status line to the width of a narrow terminal', async () => {
    const term = new FakeTerminal(24);
    const keys = new FakeKeyboard();
    const { model } = await start(keys, term);
    model.reply({ hang: true });
    keys.type('go\r');
    await waitFor(() => lastLines(term, 1)[0] === '… working (0 s) — type…', 10_000, 'the cut working line');
    expect(lastLines(term, 3)).toEqual(['> go', '>', '… working (0 s) — type…']);
  });

  it("numbers a question's options, marks the run as waiting, and takes the number as the answer", async () => {
    const term = new FakeTerminal(80);
    const keys = new FakeKeyboard();
    const { model } = await start(keys, term);
    model.reply(
      {
        toolCalls: [{ name: 'ask_user', arguments: { question: 'Which colour?', options: ['Red', 'Green', 'Blue'] } }],
      },
      { text: 'Green it is.' },
    );

    keys.type('paint the shed\r');
    await waitFor(() => term.screen().some((l) => l.startsWith('── waiting for your answer')), 10_000, 'the question');
    const asked = term.screen();
    expect(asked.slice(asked.indexOf('  @you Which colour?'))).toEqual([
      '  @you Which colour?',
      '  1. Red',
      '  2. Green',
      '  3. Blue',
      '  (type a number or your own answer)',
      '── waiting for your answer (after 0 s) ──',
      '>',
    ]);

    keys.type('2\r');
    await waitFor(() => term.screen().includes('  Green it is.'), 10_000, 'the answer');
    expect(JSON.stringify(model.requests.at(-1)!.messages)).toContain('Green');
    // The end marker follows once the run is settled (its commit lands at the end of the event loop's turn).
    await waitFor(() => lastLines(term, 2)[0]?.startsWith('── done') === true, 10_000, 'the end marker');
    expect(lastLines(term, 2)).toEqual(['── done in 0 s ──', '>']);
  });

  it("says so when an option's number comes after its question stopped waiting, instead of saying nothing", async () => {
    const term = new FakeTerminal(80);
    const keys = new FakeKeyboard();
    const { model, clock } = await start(keys, term, { ASK_TIMEOUT_MINUTES: '1' });
    model.reply(
      { toolCalls: [{ name: 'ask_user', arguments: { question: 'Which colour?', options: ['Red', 'Green'] } }] },
      { text: 'Red, then.' },
    );

    keys.type('paint the shed\r');
    await waitFor(() => term.screen().some((l) => l.startsWith('── waiting for your answer')), 10_000, 'the question');
    await waitFor(
      () => {
        clock.advance(30_000);
        return term.screen().includes('  Red, then.');
      },
      10_000,
      'the run to go on without an answer',
    );
    keys.type('2\r');
    await waitFor(
      () => term.screen().some((l) => l.includes('That question has already been answered.')),
      10_000,
      'the note',
    );
    expect(model.requests).toHaveLength(2);
  });

  it('stops a run when "stop" is typed at the prompt', async () => {
    const term = new FakeTerminal(80);
    const keys = new FakeKeyboard();
    const { model, app } = await start(keys, term);
    model.reply({ hang: true });
    keys.type('take your time\r');
    await waitFor(() => lastLines(term, 1)[0]?.startsWith('… working') === true, 10_000, 'the working line');
    keys.type('stop\r');
    await waitFor(() => term.screen().includes('── done in 0 s ──'), 10_000, 'the end marker');
    await app.coordinator.idle();
    expect(term.screen().join('\n')).toMatch(/Stopped/);
    expect(lastLines(term, 1)).toEqual(['>']);
  });
});

describe('the console when its output is piped', () => {
  it('writes plain lines: no escape codes, no prompt, the Markdown as written, a working line and an end marker', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = '';
    output.on('data', (d: Buffer) => (printed += d.toString('utf8')));
    const { model } = await start(input, output);
    model.reply({ text: '# Plan\n\n- **one**\n- two' });
    input.write('make a plan\n');
    await waitFor(() => printed.includes('── done in 0 s ──'), 10_000, 'the end marker');
    expect(printed).not.toContain('\u001b');
    expect(printed).not.toMatch(/(^|\n)> /);
    expect(printed).toContain(
      'Errand console — type a request, /help for commands, Ctrl-D to quit.\n… working — type stop to stop\nerrand:\n  # Plan\n  \n  - **one**\n  - two\n── done in 0 s ──\n',
    );
  });

  it('/help speaks of the console session, not of threads and mentions', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = '';
    output.on('data', (d: Buffer) => (printed += d.toString('utf8')));
    await start(input, output);
    input.write('/help\n');
    await waitFor(() => printed.includes('/help` — this message'), 10_000, 'the help');
    const help = printed.slice(printed.indexOf('errand (only you see this):'));
    expect(help).toContain('This session is one conversation');
    expect(help).toContain('type `allow` (once), `always` (this tool, this session) or `deny`');
    expect(help).toContain('/schedules');
    expect(help).toContain('/usage');
    expect(help).not.toMatch(/thread|mention/i);
  });
});
