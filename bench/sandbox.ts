import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createToolRegistry } from '../src/agent/tools/tool-registry.js';
import { systemClock } from '../src/clock.js';
import { openDatabase } from '../src/db/client.js';
import { silentLogger } from '../src/logger.js';
import { SYSTEM_PYTHON } from '../src/sandbox/host-layout.js';
import { setUpSandbox } from '../src/sandbox/agent/sandbox-wiring.js';
import { sandboxSettingsSchema } from '../src/settings/sandbox-settings.js';
import { createSqliteStore } from '../src/composition/sqlite-store.js';
import type { Benchmark } from './benchmark.js';
import { median } from './overhead-figures.js';

const WARMUP = 5;
const ROUNDS = Number(process.env.BENCH_SANDBOX_ROUNDS ?? 40);

function bare(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(SYSTEM_PYTHON, ['-c', 'pass'], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('close', () => resolve());
  });
}

/**
 * What the sandbox adds to running code: `run_code` of `pass` (python) through the tool path (the registry's
 * validation, the workspace read from SQLite, bwrap with every namespace and limit, the workspace written back)
 * against a bare `python3 -c pass` spawned on the same machine; medians of alternating rounds.
 */
export const benchmark: Benchmark = {
  name: 'sandbox',
  figures: ['sandbox_overhead_ms'],
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'errand-bench-sandbox-'));
    const store = createSqliteStore(openDatabase(join(dir, 'errand.db')), systemClock, { ownsDb: true });
    try {
      const parts = await setUpSandbox({
        settings: sandboxSettingsSchema.parse({}),
        store: store.workspaces,
        clock: systemClock,
        logger: silentLogger(),
      });
      if (parts.status !== 'available')
        throw new Error('no sandbox on this machine: install bubblewrap (README "Running code")');
      const registry = createToolRegistry(parts.tools);
      const conversation = { platform: 'console', workspace: 'local', channel: 'bench', thread: null };
      const context = {
        conversationId: 'console:local:bench:-',
        conversation,
        runId: 'r',
        taskId: null,
        userId: null,
        timezone: 'UTC',
        now: () => Date.now(),
      };
      const call = { id: 'c', name: 'run_code', arguments: JSON.stringify({ language: 'python', code: 'pass' }) };
      const viaTool = async () => {
        const out = await registry.execute(call, context);
        if (!out.result.ok) throw new Error(`run_code failed: ${JSON.stringify(out.result)}`);
      };
      for (let i = 0; i < WARMUP; i++) {
        await viaTool();
        await bare();
      }
      const tool: number[] = [];
      const plain: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        let t0 = performance.now();
        await viaTool();
        tool.push(performance.now() - t0);
        t0 = performance.now();
        await bare();
        plain.push(performance.now() - t0);
      }
      const sandboxed = median(tool);
      const baseline = median(plain);
      return [
        {
          name: 'sandbox_overhead_ms',
          value: sandboxed - baseline,
          unit: 'ms',
          detail: `run_code of pass ${sandboxed.toFixed(1)} ms vs python3 -c pass ${baseline.toFixed(1)} ms (medians of ${ROUNDS} alternating rounds; load average ${loadavg()[0]!.toFixed(1)})`,
        },
      ];
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
