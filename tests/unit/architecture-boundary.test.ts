import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(root, path)).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function imports(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);
}

/** Each SDK may be imported only by the one module that wraps it. */
const SDK_OWNERS: Record<string, (file: string) => boolean> = {
  openai: (f) => f === 'src/agent/llm-client.ts',
  'node-schedule': (f) => f.startsWith('src/schedules/'),
  '@slack/bolt': (f) => f.startsWith('adapters/slack/'),
  '@slack/web-api': (f) => f.startsWith('adapters/slack/'),
  'discord.js': (f) => f.startsWith('adapters/discord/'),
  '@modelcontextprotocol/sdk': (f) => f.startsWith('src/mcp/'),
  'prom-client': (f) => f === 'src/metrics/prometheus-metrics.ts',
};

describe('architecture', () => {
  it('core (src/) never imports an adapter or a platform SDK; only main.ts composes adapters', () => {
    const offenders = sources('src').flatMap((f) =>
      imports(f)
        .filter((i) => i.startsWith('@slack/') || i.startsWith('discord.js') || (i.includes('adapters/') && f !== 'src/main.ts'))
        .map((i) => `${f} imports ${i}`),
    );
    expect(offenders).toEqual([]);
  });

  it('adapters reach the core only through src/chat (and shared leaf modules)', () => {
    const allowed = /^\.\.\/\.\.\/src\/(chat\/|errors\.js|logger\.js|config\.js|clock\.js)/;
    const offenders = sources('adapters').flatMap((f) =>
      imports(f)
        .filter((i) => i.includes('/src/') && !allowed.test(i))
        .map((i) => `${relative(root, join(root, f))} imports ${i}`),
    );
    expect(offenders).toEqual([]);
  });

  it('each SDK is imported only by the module that wraps it', () => {
    const offenders = [...sources('src'), ...sources('adapters')].flatMap((f) =>
      imports(f)
        .filter((i) => Object.keys(SDK_OWNERS).some((sdk) => i === sdk || i.startsWith(`${sdk}/`)))
        .filter((i) => !SDK_OWNERS[Object.keys(SDK_OWNERS).find((sdk) => i === sdk || i.startsWith(`${sdk}/`))!]!(f))
        .map((i) => `${f} imports ${i}`),
    );
    expect(offenders).toEqual([]);
  });

  it('prom-client is reached only through the dynamic import that METRICS_PORT triggers', () => {
    const prometheusModules = /\/prometheus-(metrics|monitoring)\.js$/;
    const offenders = [...sources('src'), ...sources('adapters')].flatMap((f) => {
      const text = readFileSync(join(root, f), 'utf8');
      const staticImports = [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^;(]*?from\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);
      const allowed = f.startsWith('src/metrics/prometheus-');
      return allowed ? [] : staticImports.filter((i) => prometheusModules.test(i)).map((i) => `${f} statically imports ${i}`);
    });
    expect(offenders).toEqual([]);
    expect(readFileSync(join(root, 'src/metrics/monitoring.ts'), 'utf8')).toMatch(/await import\('\.\/prometheus-monitoring\.js'\)/);
  });

  it('no console.log outside the console adapter', () => {
    const offenders = [...sources('src'), ...sources('adapters')].filter((f) => !f.startsWith('adapters/console/') && /console\.log\(/.test(readFileSync(join(root, f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
