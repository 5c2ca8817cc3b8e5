import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errandEntryArgs } from '../support/errand-entry.js';
import { FAKE_DISCORD_TOKEN, startFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let discord: FakeDiscord;
let model: FakeOpenAI;
let dir: string;
const children: ChildProcess[] = [];

interface Spawned {
  child: ChildProcess;
  output: () => string;
}

function startErrand(env: Record<string, string>, stdin: 'ignore' | 'pipe' = 'ignore'): Spawned {
  let output = '';
  const child = spawn(process.execPath, errandEntryArgs(), {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: 'test-key',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: [stdin, 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString('utf8')));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString('utf8')));
  children.push(child);
  return { child, output: () => output };
}

const discordEnv = (database: string) => ({
  DISCORD_TOKEN: FAKE_DISCORD_TOKEN,
  DISCORD_API_URL: discord.apiUrl,
  DISCORD_GUILD_ID: discord.guildId,
  DATABASE_PATH: database,
});
const exited = (p: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    p.exitCode !== null ? resolve(p.exitCode) : p.once('exit', (code) => resolve(code)),
  );

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'errand-lock-'));
  discord = await startFakeDiscord();
  model = await startFakeOpenAI();
});

afterAll(async () => {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGKILL');
      await exited(c);
    }
  }
  await discord.close();
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('one Errand process per database', () => {
  it('a second process on the same database refuses to start and names the first (pid, host, since)', async () => {
    const database = join(dir, 'shared.db');
    const first = startErrand(discordEnv(database));
    const before = discord.stats.identifies;
    await waitFor(
      () => discord.stats.identifies > before,
      20_000,
      `the first Errand to connect (output: ${first.output()})`,
    );

    const second = startErrand(discordEnv(database));
    expect(await exited(second.child)).toBe(1);
    expect(second.output()).toContain(
      `Another Errand process is using DATABASE_PATH=${database}: pid ${first.child.pid} on host ${hostname()}, running since`,
    );
    expect(second.output()).not.toMatch(/\n\s+at /);
    expect(first.child.exitCode).toBeNull();

    first.child.kill('SIGTERM');
    expect(await exited(first.child)).toBe(0);
    expect(existsSync(`${database}.lock`)).toBe(false);
  });

  it('starts over the lock of a SIGKILLed process', async () => {
    const database = join(dir, 'killed.db');
    const first = startErrand(discordEnv(database));
    const before = discord.stats.identifies;
    await waitFor(
      () => discord.stats.identifies > before,
      20_000,
      `the first Errand to connect (output: ${first.output()})`,
    );
    first.child.kill('SIGKILL');
    await exited(first.child);
    expect(existsSync(`${database}.lock`)).toBe(true);

    const again = startErrand(discordEnv(database));
    const identifies = discord.stats.identifies;
    await waitFor(
      () => discord.stats.identifies > identifies,
      20_000,
      `the restarted Errand to connect (output: ${again.output()})`,
    );
    again.child.kill('SIGTERM');
    expect(await exited(again.child)).toBe(0);
  });
});

describe('files Errand creates in console mode', () => {
  it('creates the data directory 0700 and the database and console log 0600', async () => {
    const data = join(dir, 'console-data');
    const database = join(data, 'errand.db');
    const run = startErrand({ DATABASE_PATH: database, LOG_LEVEL: 'info', ERRAND_CONSOLE: 'on' }, 'pipe');
    await waitFor(
      () => existsSync(join(data, 'errand.log')) && statSync(join(data, 'errand.log')).size > 0,
      20_000,
      `the console log (output: ${run.output()})`,
    );
    expect(statSync(data).mode & 0o777).toBe(0o700);
    expect(statSync(database).mode & 0o777).toBe(0o600);
    expect(statSync(join(data, 'errand.log')).mode & 0o777).toBe(0o600);
    run.child.stdin?.end();
    expect(await exited(run.child)).toBe(0);
  });

  it('warns at start-up, and keeps running, when OPENAI_BASE_URL lacks /v1', async () => {
    const withoutV1 = model.baseUrl.replace(/\/v1$/, '');
    const run = startErrand(
      { DATABASE_PATH: join(dir, 'warn', 'errand.db'), OPENAI_BASE_URL: withoutV1, ERRAND_CONSOLE: 'on' },
      'pipe',
    );
    await waitFor(
      () => run.output().includes('OPENAI_BASE_URL probably lacks /v1'),
      20_000,
      `the warning (output: ${run.output()})`,
    );
    expect(run.child.exitCode).toBeNull();
    run.child.stdin?.end();
    expect(await exited(run.child)).toBe(0);
  });

  it('a DATABASE_PATH in an unusable place stops console mode with one line naming the variable, no stack trace', async () => {
    const blocker = join(dir, 'not-a-directory');
    writeFileSync(blocker, 'x');
    const run = startErrand({ DATABASE_PATH: join(blocker, 'errand.db'), ERRAND_CONSOLE: 'on' }, 'pipe');
    expect(await exited(run.child)).toBe(1);
    expect(run.output()).toMatch(
      /Errand cannot start: DATABASE_PATH=.*not-a-directory\/errand\.db: .*not-a-directory is a file, not a directory/,
    );
    expect(run.output()).not.toMatch(/\n\s+at /);
  });

  it('refuses the console adapter when no platform token is set and input is not a terminal, naming the variables', async () => {
    const run = startErrand(
      { DATABASE_PATH: join(dir, 'refuse', 'errand.db'), DISCORD_BOT_TOKEN: 'misspelled' },
      'pipe',
    );
    expect(await exited(run.child)).toBe(1);
    expect(run.output()).toMatch(
      /Errand cannot start: neither SLACK_BOT_TOKEN nor DISCORD_TOKEN is set, and standard input is not a terminal/,
    );
    expect(run.output()).toMatch(/These variables look like misspelled tokens: DISCORD_BOT_TOKEN/);
    expect(run.output()).toMatch(/ERRAND_CONSOLE=on/);
    expect(existsSync(join(dir, 'refuse'))).toBe(false);
  });
});
