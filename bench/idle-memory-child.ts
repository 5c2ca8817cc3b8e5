import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSlackAdapter, slackOptionsFromConfig } from '../adapters/slack/create-slack-adapter.js';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { nodeHeapSignals, startIdleHeapRelease, unrefInterval } from '../src/runtime/process/idle-heap-release.js';

/**
 * Runs inside its own process (compiled, as `npm start` runs Errand): Errand with the Slack
 * adapter on the parent's fake Slack, logging at info as in production. The parent drives the
 * conversations; on `loaded` this process waits until no run is left, stays quiet for QUIET_MS and
 * reports its memory over IPC.
 */
const quietMs = Number(process.env.QUIET_MS ?? 30_000);

/**
 * Resident memory split by kind (/proc/self/status, Linux): anonymous (heaps, malloc) vs file-backed (the
 * node binary, libraries), and of the anonymous part the main thread's malloc heap (`[heap]` in smaps),
 * where native allocations that were freed but not handed back stay.
 */
function residentKinds(): { anon: number; file: number; mallocMain: number } | null {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    const heapMapping = /\[heap\]\n(?:[^\n]*\n)*?Rss:\s+(\d+) kB/.exec(readFileSync('/proc/self/smaps', 'utf8'));
    return { anon: kib('RssAnon'), file: kib('RssFile'), mallocMain: Number(heapMapping?.[1] ?? 0) * 1024 };
  } catch {
    return null;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'errand-bench-mem-'));
const config = loadConfig({
  OPENAI_BASE_URL: process.env.MODEL_URL,
  OPENAI_API_KEY: 'bench',
  DATABASE_PATH: join(dir, 'errand.db'),
  MAX_CONCURRENT_RUNS: '50',
  SLACK_BOT_TOKEN: 'xoxb-bench-token',
  SLACK_MODE: 'http',
  SLACK_SIGNING_SECRET: process.env.SIGNING_SECRET,
  SLACK_PORT: '0',
  SLACK_API_URL: process.env.SLACK_API_URL,
  LOG_LEVEL: 'info',
});
const logger = createLogger(config.LOG_LEVEL);
const adapter = createSlackAdapter({
  ...slackOptionsFromConfig(config, logger),
  host: '127.0.0.1',
  tuning: { messageRate: { burst: 10_000, perSecond: 10_000 } },
});
const app = await createApp({ config, adapters: [adapter], logger });
await app.start();
// As src/main.ts does after starting the app.
const heap = nodeHeapSignals();
if (heap) startIdleHeapRelease({ signals: heap, every: unrefInterval });
process.send?.({ type: 'ready', port: adapter.httpPort(), rss: process.memoryUsage.rss() });
process.once('message', () => {
  void (async () => {
    const afterLoad = process.memoryUsage.rss();
    await app.coordinator.idle();
    await new Promise((r) => setTimeout(r, quietMs));
    const usage = process.memoryUsage();
    process.send?.({ type: 'idle', afterLoad, ...usage, resident: residentKinds() }, () => {
      void app.stop().finally(() => {
        rmSync(dir, { recursive: true, force: true });
        process.exit(0);
      });
    });
  })();
});
