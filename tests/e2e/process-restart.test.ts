import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errandEntryArgs } from '../support/errand-entry.js';
import { FAKE_DISCORD_TOKEN, startFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';
import { FakeSlack } from '../fakes/fake-slack.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let discord: FakeDiscord;
let model: FakeOpenAI;
let dir: string;
let child: ChildProcess | null = null;
let stderr = '';
let allLogs = '';

/** Starts Errand's real entry point as a separate process, configured only through the environment. */
function startErrand(): ChildProcess {
  stderr = '';
  const p = spawn(process.execPath, errandEntryArgs(), {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      DISCORD_TOKEN: FAKE_DISCORD_TOKEN,
      DISCORD_API_URL: discord.apiUrl,
      DISCORD_GUILD_ID: discord.guildId,
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: 'test-key',
      DATABASE_PATH: join(dir, 'errand.db'),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  p.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  p.stdout?.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
    allLogs += d.toString('utf8');
  });
  return p;
}

async function connected(before: number): Promise<void> {
  await waitFor(
    () => discord.stats.identifies > before,
    20_000,
    `Errand to connect to the gateway (stderr: ${stderr})`,
  );
}

const exited = (p: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    p.exitCode !== null ? resolve(p.exitCode) : p.once('exit', (code) => resolve(code)),
  );

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'errand-proc-'));
  discord = await startFakeDiscord();
  model = await startFakeOpenAI();
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
    await exited(child);
  }
  await discord.close();
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the Errand process (npm start entry point) against fake Discord', () => {
  it('survives SIGKILL mid-run: on restart the run resumes with a note, and a redelivered message is not answered again', async () => {
    child = startErrand();
    await connected(0);
    model.reply({ hang: true });
    const msg = discord.userMessage(discord.general.id, `<@${discord.bot.id}> compile the weekly report`);
    await waitFor(() => model.hanging() === 1, 10_000, 'the model request');
    child.kill('SIGKILL');
    await exited(child);

    model.reply({ text: 'Weekly report compiled.' });
    const identifies = discord.stats.identifies;
    child = startErrand();
    await connected(identifies);
    await waitFor(
      () => discord.botMessagesIn(msg.id).some((m) => m.content === 'Weekly report compiled.'),
      15_000,
      'the resumed answer',
    );
    const texts = discord.botMessagesIn(msg.id).map((m) => m.content);
    expect(
      texts.some((t) => /restarted while working on task #1/.test(t)),
      `thread: ${JSON.stringify(texts)}\nlogs: ${allLogs}`,
    ).toBe(true);
    const goals = model.requests
      .at(-1)!
      .messages.filter((m) => m.role === 'user' && String(m.content).includes('compile the weekly report'));
    expect(goals).toHaveLength(1);

    const requests = model.requests.length;
    discord.redeliver(msg.id);
    await new Promise((r) => setTimeout(r, 500));
    expect(model.requests.length).toBe(requests);
  });

  it('stops cleanly on SIGTERM', async () => {
    expect(child?.exitCode).toBeNull();
    child!.kill('SIGTERM');
    expect(await exited(child!)).toBe(0);
  });

  it('refuses to start with a clear message when configuration is malformed', async () => {
    const p = spawn(process.execPath, errandEntryArgs(), {
      cwd: root,
      env: { PATH: process.env.PATH, OPENAI_API_KEY: 'k', MAX_STEPS: 'lots', DATABASE_PATH: join(dir, 'bad.db') },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    p.stderr?.on('data', (d: Buffer) => (err += d.toString('utf8')));
    expect(await exited(p)).toBe(1);
    expect(err).toContain('MAX_STEPS: expected a whole number, got "lots"');
    expect(err).not.toMatch(/\n\s+at /);
  });
});

describe('the Errand process against fake Slack (Socket Mode, the default)', () => {
  it('connects with the environment contract alone and answers a mention in its thread', async () => {
    const slack = await FakeSlack.start();
    const p = spawn(process.execPath, errandEntryArgs(), {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        SLACK_BOT_TOKEN: 'xoxb-process-test',
        SLACK_APP_TOKEN: 'xapp-process-test',
        SLACK_API_URL: slack.apiUrl,
        OPENAI_BASE_URL: model.baseUrl,
        OPENAI_API_KEY: 'test-key',
        DATABASE_PATH: join(dir, 'slack.db'),
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    try {
      await waitFor(() => slack.socketCount() > 0, 20_000, 'Errand to open a Socket Mode connection');
      model.reply({ text: 'Hello from the process.' });
      const { ts } = await slack.mention({ user: 'U0ALICE1', channel: 'C0GENERAL', text: 'say hello' });
      await waitFor(
        () => slack.botTexts('C0GENERAL', ts).includes('Hello from the process.'),
        10_000,
        'the threaded answer',
      );
    } finally {
      p.kill('SIGTERM');
      expect(await exited(p)).toBe(0);
      await slack.close();
    }
  });
});
