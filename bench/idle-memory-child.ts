import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { MemoryAdapter } from '../tests/fakes/memory-adapter.js';

/**
 * Runs inside its own process: Errand (real app, real SDK, heartbeat on) serves one exchange in
 * each of CONVERSATIONS conversations, then stays quiet for QUIET_MS and reports its RSS.
 */
const conversations = Number(process.env.CONVERSATIONS ?? 10_000);
const quietMs = Number(process.env.QUIET_MS ?? 30_000);
const dir = mkdtempSync(join(tmpdir(), 'errand-bench-mem-'));
const config = loadConfig({ OPENAI_BASE_URL: process.env.MODEL_URL, OPENAI_API_KEY: 'bench', DATABASE_PATH: join(dir, 'errand.db'), MAX_CONCURRENT_RUNS: '50' });
const adapter = new MemoryAdapter();
const app = createApp({ config, adapters: [adapter] });
await app.start();
const baseline = process.memoryUsage().rss;
const BATCH = 50;
for (let i = 0; i < conversations; i += BATCH) {
  const batch = [];
  for (let j = i; j < Math.min(conversations, i + BATCH); j++) batch.push(adapter.say(adapter.thread(`C${j % 100}`, `T${j}`), `hello ${j}`));
  await Promise.all(batch);
  await app.coordinator.idle();
}
const answered = adapter.posts.length;
adapter.posts.length = 0;
const afterLoad = process.memoryUsage().rss;
await new Promise((r) => setTimeout(r, quietMs));
const usage = process.memoryUsage();
const idle = usage.rss;
process.stdout.write(`${JSON.stringify({ baseline, afterLoad, idle, answered, heapUsed: usage.heapUsed, heapTotal: usage.heapTotal, external: usage.external })}\n`);
await app.stop();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
