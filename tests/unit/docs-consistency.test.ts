import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV_VARIABLES, loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/logger.js';
import { loadMonitoring } from '../../src/metrics/load-monitoring.js';
import { composeContainerPorts, composeEnvironment, dockerfileEnv, envFileValues } from '../support/container-env.js';

const root = join(import.meta.dirname, '../..');
const read = (f: string) => readFileSync(join(root, f), 'utf8');

describe('documentation stays current', () => {
  it('.env.example lists every environment variable the config reads, and no other', () => {
    const listed = [...read('.env.example').matchAll(/^([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]);
    expect([...listed].sort()).toEqual([...ENV_VARIABLES].sort());
  });

  it("the README's configuration table has a row for every variable", () => {
    const readme = read('README.md');
    const missing = ENV_VARIABLES.filter((v) => !readme.includes(`| \`${v}\` |`));
    expect(missing).toEqual([]);
  });

  it('the Slack manifest declares every slash command the README documents', () => {
    const manifest = read('adapters/slack/manifest.yaml');
    for (const cmd of ['/tasks', '/stop', '/schedules', '/usage', '/help'])
      expect(manifest).toContain(`command: ${cmd}`);
  });
});

/** An address of this machine other than 127.0.0.1: a server bound to loopback only refuses connections to it. */
function otherAddress(): string {
  const external = Object.values(networkInterfaces())
    .flat()
    .find((i) => i !== undefined && i.family === 'IPv4' && !i.internal);
  return external?.address ?? '127.0.0.2';
}

describe('the container setup', () => {
  it('serves /metrics on every interface of the container, so the port docker-compose.yml offers to publish answers', async () => {
    const compose = read('docker-compose.yml');
    // What the container sees: the image's ENV, overridden by .env (as copied from .env.example), overridden by compose's environment.
    const env = {
      ...dockerfileEnv(read('Dockerfile')),
      ...envFileValues(read('.env.example')),
      ...composeEnvironment(compose, 'errand'),
      OPENAI_API_KEY: 'k',
    };
    const cwd = mkdtempSync(join(tmpdir(), 'errand-compose-'));
    try {
      const config = loadConfig(env, cwd);
      expect(config.METRICS_PORT).toBe(9464);
      expect(composeContainerPorts(compose, 'errand')).toContain(config.METRICS_PORT);
      expect(config.METRICS_HOST).toBe('0.0.0.0');

      // The image alone (docker run -p 9464:9464 -e METRICS_PORT=9464) listens on every interface too.
      expect(
        loadConfig({ ...dockerfileEnv(read('Dockerfile')), METRICS_PORT: '9464', OPENAI_API_KEY: 'k' }, cwd)
          .METRICS_HOST,
      ).toBe('0.0.0.0');

      // What that host means: the server answers on an address other than loopback, as a published port reaches it.
      const monitoring = await loadMonitoring({ port: 0, host: config.METRICS_HOST, logger: silentLogger() });
      await monitoring.start({
        health: async () => ({ status: 'ok', problems: [], database: { writable: true }, platforms: {} }),
        gauges: async () => ({ runsActive: 0, tasksPending: 0 }),
      });
      try {
        const res = await fetch(`http://${otherAddress()}:${monitoring.port()}/metrics`);
        expect(res.status).toBe(200);
        expect(await res.text()).toContain('errand_runs_active');
      } finally {
        await monitoring.stop();
      }
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
