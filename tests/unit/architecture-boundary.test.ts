import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(root, path)).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const compilerOptions: ts.CompilerOptions = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, allowJs: false };
const host = ts.createCompilerHost(compilerOptions);

/** One import of a file: the specifier as written, and where TypeScript resolves it (repo-relative, or null for packages). */
interface ResolvedImport {
  readonly specifier: string;
  readonly target: string | null;
  /** The npm package it names, when it is one. */
  readonly pkg: string | null;
}

/**
 * Every import of a file as TypeScript sees it: static and dynamic imports, re-exports, `require()` and
 * `import x = require()`, resolved by the compiler's own resolver, so `../chat/../agent/x.js` counts as agent/.
 */
function importsOf(file: string): ResolvedImport[] {
  const text = readFileSync(join(root, file), 'utf8');
  const info = ts.preProcessFile(text, true, true);
  // createRequire makes a require of its own: its calls are imports too (lazily loaded SDKs).
  const requirers = [...text.matchAll(/\b(?:const|let)\s+(\w+)\s*=\s*createRequire\(/g)].map((m) => m[1]!);
  const lazy = requirers.flatMap((name) => [...text.matchAll(new RegExp(`\\b${name}\\(\\s*['"]([^'"]+)['"]`, 'g'))].map((m) => m[1]!));
  const specifiers = [...info.importedFiles.map((f) => f.fileName), ...lazy];
  return specifiers.map((specifier) => {
    const resolved = ts.resolveModuleName(specifier, join(root, file), compilerOptions, host).resolvedModule;
    const external = resolved ? resolved.isExternalLibraryImport === true : !specifier.startsWith('.');
    const target = resolved && !external ? relative(root, resolved.resolvedFileName) : null;
    const pkg = external ? (specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!) : null;
    return { specifier, target, pkg };
  });
}

const all = [...sources('src'), ...sources('adapters')];
const graph = new Map(all.map((f) => [f, importsOf(f)]));
const offenders = (files: readonly string[], bad: (i: ResolvedImport, file: string) => boolean) =>
  files.flatMap((f) => graph.get(f)!.filter((i) => bad(i, f)).map((i) => `${f} imports ${i.specifier}`));
const inside = (dir: string) => (f: string) => f.startsWith(dir);

/** Each SDK may be imported only by the modules that wrap it. */
const SDK_OWNERS: Record<string, (file: string) => boolean> = {
  openai: (f) => f === 'src/agent/llm-client.ts' || f === 'src/agent/model-endpoint-check.ts',
  'node-schedule': inside('src/schedules/'),
  '@slack/bolt': inside('adapters/slack/'),
  '@slack/web-api': inside('adapters/slack/'),
  'discord.js': inside('adapters/discord/'),
  '@modelcontextprotocol/sdk': inside('src/mcp/'),
  'prom-client': (f) => f === 'src/metrics/prometheus-metrics.ts',
  marked: inside('adapters/console/'),
  'marked-terminal': inside('adapters/console/'),
  koffi: (f) => f === 'src/runtime/malloc-trim.ts',
};

describe('architecture', () => {
  it('resolves imports the way TypeScript does (the checks below would otherwise see nothing)', () => {
    const resolved = [...graph.values()].flat().filter((i) => i.target !== null);
    expect(resolved.length).toBeGreaterThan(300);
    expect(graph.get('src/runtime/dispatcher.ts')!.map((i) => i.target)).toContain('src/runtime/run-coordinator.ts');
  });

  it('core (src/) never imports an adapter or a platform SDK; only main.ts composes adapters', () => {
    const bad = offenders(sources('src'), (i, f) => i.pkg === 'discord.js' || i.pkg?.startsWith('@slack/') === true || (i.target?.startsWith('adapters/') === true && f !== 'src/main.ts'));
    expect(bad).toEqual([]);
  });

  it('adapters reach the core only through src/chat (and shared leaf modules)', () => {
    const allowed = /^src\/(chat\/|net\/|errors\.ts$|logger\.ts$|config\.ts$|clock\.ts$)/;
    expect(offenders(sources('adapters'), (i) => i.target?.startsWith('src/') === true && !allowed.test(i.target))).toEqual([]);
    // src/net is shared plumbing (HTTP clients): it knows nothing of Errand.
    expect(offenders(sources('src/net'), (i) => i.target?.startsWith('src/') === true && !i.target.startsWith('src/net/'))).toEqual([]);
  });

  it('commands do not import the runtime, and the agent does not import the database', () => {
    expect(offenders(sources('src/commands'), (i) => i.target?.startsWith('src/runtime/') === true)).toEqual([]);
    expect(offenders(sources('src/agent'), (i) => i.target?.startsWith('src/db/') === true)).toEqual([]);
  });

  it('only the store implementations, src/db/ and src/cluster/ reach the database drivers; the rest of the core talks to the Store', () => {
    const sqliteOnly = (f: string) => f.startsWith('src/store/sqlite/') || f.startsWith('src/db/');
    const postgresOnly = (f: string) => f.startsWith('src/store/postgres/') || f.startsWith('src/db/') || f.startsWith('src/cluster/');
    expect(offenders(all, (i, f) => i.pkg === 'better-sqlite3' && !sqliteOnly(f))).toEqual([]);
    expect(offenders(all, (i, f) => i.pkg === 'pg' && !postgresOnly(f))).toEqual([]);
    expect(offenders(all, (i, f) => i.pkg === 'drizzle-orm' && !sqliteOnly(f) && !postgresOnly(f))).toEqual([]);
    expect(offenders(all, (i, f) => i.target?.startsWith('src/store/sqlite/') === true && !f.startsWith('src/store/'))).toEqual([]);
  });

  it("the Slack adapter loads Bolt's classes through adapters/slack/bolt.ts, never Bolt's whole index (types only)", () => {
    const valueImports = sources('adapters').filter((f) => /^import (?!type\b)[^;]*from '@slack\/bolt';/m.test(readFileSync(join(root, f), 'utf8')));
    expect(valueImports).toEqual([]);
  });

  it('each SDK is imported only by the module that wraps it', () => {
    expect(offenders(all, (i, f) => i.pkg !== null && i.pkg in SDK_OWNERS && !SDK_OWNERS[i.pkg]!(f))).toEqual([]);
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

  it('marked and marked-terminal are loaded only on demand (a colour console), never at start-up', () => {
    const offenders = all
      .filter((f) => !f.endsWith('.d.ts'))
      .flatMap((f) => {
        const text = readFileSync(join(root, f), 'utf8');
        const valueImports = [...text.matchAll(/(?:^|\n)\s*(?:import|export)(?!\s+type\b)[^;(]*?from\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);
        return valueImports.filter((i) => i === 'marked' || i === 'marked-terminal').map((i) => `${f} statically imports ${i}`);
      });
    expect(offenders).toEqual([]);
    expect(readFileSync(join(root, 'adapters/console/markdown-renderer.ts'), 'utf8')).toMatch(/import\('marked-terminal'\)/);
  });

  it('sees the modules createRequire loads, and no console.log outside the console adapter', () => {
    expect(graph.get('src/schedules/wake-timer.ts')!.map((i) => i.pkg)).toContain('node-schedule');
    const texts = all.map((f) => [f, readFileSync(join(root, f), 'utf8')] as const);
    expect(texts.filter(([f, t]) => !f.startsWith('adapters/console/') && /console\.log\(/.test(t)).map(([f]) => f)).toEqual([]);
  });
});
