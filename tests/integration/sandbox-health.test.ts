import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { loadMonitoring } from '../../src/metrics/load-monitoring.js';
import type { Monitoring } from '../../src/metrics/monitoring.js';
import { probeSandbox, type SandboxAvailability } from '../../src/sandbox/sandbox-probe.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { MemoryAdapter } from '../fakes/memory-adapter.js';

/*
 * Whether run_code can be offered is found at start-up by starting a real sandbox: where none starts the tool is
 * not offered, the log says why and how to fix it, and /healthz shows `sandbox: unavailable`.
 */

let running: { app: App; monitoring: Monitoring } | null = null;
afterEach(async () => {
  await running?.app.stop();
  await running?.monitoring.stop();
  running = null;
});

/** Errand on the memory adapter with /healthz served, its log lines collected. */
async function startMonitored(probe?: () => Promise<SandboxAvailability>) {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    new Writable({
      write: (chunk: Buffer, _enc, done) => (
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>),
        done()
      ),
    }),
  );
  const dir = mkdtempSync(join(tmpdir(), 'errand-health-'));
  const config = loadConfig({
    OPENAI_API_KEY: 'k',
    OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
    DATABASE_PATH: join(dir, 'errand.db'),
  });
  const monitoring = await loadMonitoring({ port: 0, host: '127.0.0.1', logger });
  const app = await createApp({
    config,
    adapters: [new MemoryAdapter('W1')],
    clock: new FakeClock(),
    logger,
    monitoring,
    ...(probe ? { sandboxProbe: probe } : {}),
  });
  await app.start();
  running = { app, monitoring };
  const health = async () =>
    (await (await fetch(`http://127.0.0.1:${monitoring.port()}/healthz`)).json()) as {
      status: string;
      sandbox?: string;
    };
  return { lines, health };
}

/** A directory with a `bwrap` that fails as bwrap does where user namespaces are off. */
function bwrapWithoutNamespaces(): string {
  const dir = mkdtempSync(join(tmpdir(), 'errand-fake-bwrap-'));
  chmodSync(dir, 0o755);
  const bin = join(dir, 'bwrap');
  writeFileSync(
    bin,
    '#!/bin/sh\necho "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n',
  );
  chmodSync(bin, 0o755);
  return dir;
}

describe('sandbox availability', () => {
  it('is found by a real sandbox start here, and /healthz says available', async () => {
    const { health } = await startMonitored();
    expect(await health()).toMatchObject({ status: 'ok', sandbox: 'available' });
  });

  it('where user namespaces are off: the probe says so with the fix, start-up logs it, and /healthz says unavailable', async () => {
    const probe = () => probeSandbox({ path: bwrapWithoutNamespaces() });
    const found = await probe();
    expect(found).toMatchObject({ available: false });
    expect(!found.available && found.reason).toMatch(/cannot create the sandbox's namespaces/);
    const { lines, health } = await startMonitored(probe);
    const warning = lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('run_code is not offered'));
    expect(warning?.msg).toMatch(/user\.max_user_namespaces/);
    expect(await health()).toMatchObject({ status: 'ok', sandbox: 'unavailable' });
  });

  it('without bubblewrap or off Linux, says what to install or where to run', async () => {
    expect(await probeSandbox({ path: '/nonexistent' })).toMatchObject({
      available: false,
      reason: 'bubblewrap (bwrap) is not installed',
      fix: expect.stringContaining('apt-get install bubblewrap'),
    });
    expect(await probeSandbox({ platform: 'darwin' })).toMatchObject({
      available: false,
      reason: expect.stringContaining('needs Linux'),
    });
  });
});
