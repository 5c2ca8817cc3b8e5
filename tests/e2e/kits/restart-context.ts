import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/fake-openai.js';
import type { ErrandProcess } from '../errand-process.js';

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
