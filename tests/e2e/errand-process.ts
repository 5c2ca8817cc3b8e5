import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAKE_DISCORD_TOKEN, type FakeDiscord } from '../fakes/fake-discord.js';
import type { FakeOpenAI } from '../fakes/fake-openai.js';
import type { FakeSlack } from '../fakes/fake-slack.js';
import { errandEntryArgs } from '../support/errand-entry.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Errand's real entry point running as a child process, with what it printed. */
export interface ErrandProcess {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves with the exit code once the process has exited. */
  exited(): Promise<number | null>;
  /** SIGKILL (nothing runs after it) and wait for the exit. */
  kill(): Promise<void>;
}

/** The environment that points Errand at the fake platform and model, with its database in `dir`. */
export function discordEnv(discord: FakeDiscord, model: FakeOpenAI, dir: string): NodeJS.ProcessEnv {
  return {
    DISCORD_TOKEN: FAKE_DISCORD_TOKEN,
    DISCORD_API_URL: discord.apiUrl,
    DISCORD_GUILD_ID: discord.guildId,
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'test-key',
    DATABASE_PATH: join(dir, 'errand.db'),
  };
}

export function slackEnv(slack: FakeSlack, model: FakeOpenAI, dir: string): NodeJS.ProcessEnv {
  return {
    SLACK_BOT_TOKEN: 'xoxb-outbox-test',
    SLACK_APP_TOKEN: 'xapp-outbox-test',
    SLACK_API_URL: slack.apiUrl,
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'test-key',
    DATABASE_PATH: join(dir, 'errand.db'),
  };
}

/**
 * Starts Errand's entry point as `npm start` would (built once per run: tests/support/errand-build.ts),
 * configured only through the environment. With `stdin: 'pipe'` the test writes its standard input (`child.stdin`), as `printf … | npm start` would.
 * `entry` replaces the node arguments where no vitest run built the entry point (a benchmark: bench/entry-process.ts).
 */
export function startErrandProcess(
  env: NodeJS.ProcessEnv,
  options: { stdin?: 'ignore' | 'pipe'; entry?: readonly string[] } = {},
): ErrandProcess {
  let out = '';
  const child = spawn(process.execPath, [...(options.entry ?? errandEntryArgs())], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      LOG_LEVEL: 'warn',
      ERRAND_CHECK_TX_CONTEXT: process.env.ERRAND_CHECK_TX_CONTEXT,
      ...env,
    },
    stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const exited = () =>
    new Promise<number | null>((resolve) =>
      child.exitCode !== null || child.signalCode !== null
        ? resolve(child.exitCode)
        : child.once('exit', (code) => resolve(code)),
    );
  return {
    child,
    output: () => out,
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited();
    },
  };
}
