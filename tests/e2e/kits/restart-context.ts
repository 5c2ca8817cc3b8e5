import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { FakeDiscord } from '../../fakes/fake-discord.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/fake-openai.js';
import type { FakeSlack } from '../../fakes/fake-slack.js';
import { waitFor } from '../../fakes/wait-for.js';
import { discordEnv, slackEnv, startErrandProcess, type ErrandProcess } from '../errand-process.js';

/** What a restart test holds per test: a fake model, a data folder, and the Errand process it started. */
export interface RestartContext {
  readonly model: FakeOpenAI;
  readonly dir: string;
  /** The process the test runs now (SIGKILLed after each test); set by the test itself. */
  errand: ErrandProcess | null;
}

/**
 * Registers the per-test set-up (a fresh model, prepared by `prepare`, and a folder named after `prefix`) and
 * clean-up (the process killed, the model closed, the folder removed); the returned object holds the current test's.
 */
export function useRestartContext(prefix: string, prepare?: (model: FakeOpenAI) => void): RestartContext {
  const context = { errand: null } as { model: FakeOpenAI; dir: string; errand: ErrandProcess | null };
  beforeEach(async () => {
    context.dir = mkdtempSync(join(tmpdir(), prefix));
    context.model = await startFakeOpenAI();
    prepare?.(context.model);
  });
  afterEach(async () => {
    await context.errand?.kill();
    context.errand = null;
    await context.model.close();
    rmSync(context.dir, { recursive: true, force: true });
  });
  return context;
}

/** Starts Errand on the fake Slack (Socket Mode) as the test's process; resolves once its socket is open. */
export async function startOnSlack(context: RestartContext, slack: FakeSlack): Promise<void> {
  context.errand = startErrandProcess(slackEnv(slack, context.model, context.dir));
  await waitFor(() => slack.socketCount() > 0, 30_000, 'Errand to open a Socket Mode connection');
}

/** Starts Errand on the fake Discord as the test's process, with `env` added; resolves once it identified on the gateway. */
export async function startOnDiscord(
  context: RestartContext,
  discord: FakeDiscord,
  env: NodeJS.ProcessEnv = {},
): Promise<void> {
  const before = discord.stats.identifies;
  context.errand = startErrandProcess({ ...discordEnv(discord, context.model, context.dir), ...env });
  await waitFor(() => discord.stats.identifies > before, 30_000, 'Errand to connect to the gateway');
}
