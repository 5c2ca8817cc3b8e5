import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App, type AppOptions } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { MemoryAdapter } from '../fakes/memory-adapter.js';

export interface Harness {
  app: App;
  adapter: MemoryAdapter;
  model: FakeOpenAI;
  clock: FakeClock;
  config: Config;
  dbPath: string;
  /** Stops this app and starts a new one on the same database (a restart). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Errand with the in-memory adapter, a fake clock, and the real `openai` SDK talking to the
 * fake model server. Each harness has its own database file.
 */
export async function startHarness(
  env: Record<string, string> = {},
  extra: Pick<AppOptions, 'externalTools' | 'logger' | 'filesOut' | 'sandboxProbe'> & { platform?: string } = {},
): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'errand-it-'));
  const dbPath = join(dir, 'errand.db');
  const model = await startFakeOpenAI();
  const clock = new FakeClock();
  const config = loadConfig({
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'test-key',
    DATABASE_PATH: dbPath,
    ...env,
  });
  const make = async () => {
    const adapter = new MemoryAdapter('W1', extra.platform);
    const app = await createApp({
      config,
      adapters: [adapter],
      clock,
      modelBackoffMs: () => 5,
      taskRetryDelayMs: () => 60_000,
      ...(extra.externalTools ? { externalTools: extra.externalTools } : {}),
      ...(extra.logger ? { logger: extra.logger } : {}),
      ...(extra.filesOut ? { filesOut: extra.filesOut } : {}),
      ...(extra.sandboxProbe ? { sandboxProbe: extra.sandboxProbe } : {}),
    });
    return { app, adapter };
  };
  let current = await make();
  await current.app.start();
  const h: Harness = {
    get app() {
      return current.app;
    },
    get adapter() {
      return current.adapter;
    },
    model,
    clock,
    config,
    dbPath,
    async restart() {
      await current.app.stop();
      current = await make();
      await current.app.start();
    },
    async close() {
      await current.app.stop();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return h;
}

/** A promise with its resolve function, for gating fake steps. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => {
    open = r;
  });
  return { promise, open };
}

/** The content of the last user message of a recorded model request (the goal of its run). */
export function lastUserMessage(req: { messages: { role: string; content?: unknown }[] }): string {
  return String([...req.messages].reverse().find((m) => m.role === 'user')?.content);
}
