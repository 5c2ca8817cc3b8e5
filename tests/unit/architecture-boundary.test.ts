import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { portReaches, programOf } from './port-holders-check.js';

const root = join(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(root, path)).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/**
 * THE LAYERS, lowest first, written once. A module imports only its own layer or a lower one (type-only
 * imports included), and no two modules or folders import each other in a circle. A path names a folder
 * (ending in `/`) or one file; a file belongs to the longest path that holds it, and every file of src/
 * and adapters/ must belong to one.
 */
const LAYERS: readonly (readonly string[])[] = [
  // Shared plumbing that knows nothing of Errand.
  ['src/clock.ts', 'src/errors.ts', 'src/logger.ts', 'src/net/', 'src/secrets/'],
  // The platform port: ConversationRef, InboundMessage, the ChatAdapter interface, formatting helpers.
  ['src/chat/'],
  // What the operator configures.
  ['src/settings/', 'src/config.ts'],
  // The platform adapters: implementations of the chat port, composed by main.ts alone.
  ['adapters/'],
  // The values Errand records (transcript entries, parked questions, post purposes), then the tables that hold them.
  ['src/records/'],
  ['src/db/'],
  // What the core reports into (/metrics, /healthz, traces): asks nothing of the layers above.
  ['src/metrics/', 'src/telemetry/'],
  // The domains, each with its records' store interface.
  [
    'src/access/',
    'src/budget/',
    'src/runs/',
    'src/tasks/',
    'src/conversations/',
    'src/attachments/',
    'src/schedules/',
    'src/sign-in/',
    'src/questions/',
    'src/memory/',
    'src/sandbox/',
    'src/skills/',
    'src/audit/',
    'src/admin/',
    'src/privacy/',
  ],
  // The one Store of the core, and its SQLite and PostgreSQL implementations.
  [
    'src/store/',
    'src/schedules/store/',
    'src/sandbox/store/',
    'src/memory/store/',
    'src/sign-in/store/',
    'src/questions/store/',
  ],
  // The agent loop, its model client and its tools.
  ['src/agent/', 'src/schedules/agent/', 'src/sandbox/agent/', 'src/memory/agent/'],
  // What runs hand their posts to, and the tool servers the agent calls.
  ['src/outbox/', 'src/mcp/', 'src/sign-in/mcp/', 'src/questions/mcp/'],
  // Platform-neutral command handlers.
  ['src/commands/', 'src/schedules/commands/', 'src/memory/commands/', 'src/sign-in/commands/'],
  // The dispatcher and the run lifecycle.
  ['src/runtime/', 'src/schedules/runtime/', 'src/sandbox/runtime/', 'src/sign-in/runtime/', 'src/questions/runtime/'],
  // Scale-out: several processes over one PostgreSQL database.
  ['src/cluster/'],
  // The web console for operators (/admin on WEB_PORT): reads across every layer below it.
  ['src/web-console/'],
  // Composition.
  [
    // The whole Store (every feature's store beside the core's), assembled on SQLite or PostgreSQL, and opened.
    'src/composition/',
    'src/app.ts',
    'src/app-contract.ts',
    'src/app-model.ts',
    'src/app-agent.ts',
    'src/app-lifecycle.ts',
  ],
  ['src/main.ts'],
];

/**
 * A feature's home (src/schedules/, say) keeps its parts in sub-folders named for the layer each stands on
 * (store/, agent/, commands/, runtime/), placed in LAYERS beside that layer: the rules for a layer's folder
 * hold for the same part of every home.
 */
const homePart = (file: string, part: string): boolean =>
  new RegExp(`^src/[a-z-]+/${part}/`).test(file) && !file.startsWith(`src/${part}/`);

/** The layer a file belongs to (index into LAYERS), or -1. */
function layerOf(file: string): number {
  let best = { layer: -1, length: 0 };
  LAYERS.forEach((paths, layer) => {
    for (const p of paths) {
      const holds = p.endsWith('/') ? file.startsWith(p) : file === p;
      if (holds && p.length > best.length) best = { layer, length: p.length };
    }
  });
  return best.layer;
}

/** A room: a file's folder (src/agent/tools/x.ts → src/agent), or the file itself at the top of src/. */
function folderOf(file: string): string {
  const parts = file.split('/');
  return parts.length <= 2 ? file : parts.slice(0, 2).join('/');
}

const compilerOptions: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  allowJs: false,
};
const host = ts.createCompilerHost(compilerOptions);

type ImportKind = 'static' | 'type' | 'dynamic' | 'require';

/** One import of a file: the specifier as written, how it is loaded, and where TypeScript resolves it. */
interface ResolvedImport {
  readonly specifier: string;
  readonly kind: ImportKind;
  /** Repo-relative path of the file it resolves to, or null for packages. */
  readonly target: string | null;
  /** The npm package it names, when it is one. */
  readonly pkg: string | null;
}

/** Every import of a file, and the loads whose module cannot be known without running the code. */
interface FileImports {
  readonly imports: ResolvedImport[];
  readonly computed: string[];
}

const literal = (node: ts.Node | undefined): string | null =>
  node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : null;

/**
 * Every import of a file as the compiler parses it: `import`, `export … from` (re-exports), `import x =
 * require()`, `import()`, `require()` and the functions `createRequire(…)` makes (called at once or through a
 * variable). Each is resolved by the compiler's own resolver, so `../chat/../agent/x.js` counts as agent/. A
 * load whose module is computed is returned apart: the checks cannot see where it goes.
 */
function importsOfText(file: string, text: string): FileImports {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: { specifier: string; kind: ImportKind }[] = [];
  const computed: string[] = [];
  const requirers = new Set<string>(['require']);
  const isCreateRequire = (e: ts.Expression) =>
    ts.isCallExpression(e) && ts.isIdentifier(e.expression) && e.expression.text === 'createRequire';
  const where = (node: ts.Node) => `${file}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const named =
        clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : null;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly || (!clause.name && named !== null && named.length > 0 && named.every((e) => e.isTypeOnly)));
      found.push({ specifier: literal(node.moduleSpecifier)!, kind: typeOnly ? 'type' : 'static' });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : null;
      const typeOnly = node.isTypeOnly || (named !== null && named.length > 0 && named.every((e) => e.isTypeOnly));
      found.push({ specifier: literal(node.moduleSpecifier)!, kind: typeOnly ? 'type' : 'static' });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      found.push({ specifier: literal(node.moduleReference.expression)!, kind: node.isTypeOnly ? 'type' : 'require' });
    } else if (ts.isImportTypeNode(node)) {
      const arg = ts.isLiteralTypeNode(node.argument) ? literal(node.argument.literal) : null;
      if (arg) found.push({ specifier: arg, kind: 'type' });
    } else if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer &&
      isCreateRequire(node.initializer)
    ) {
      requirers.add(node.name.text);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const loads =
        callee.kind === ts.SyntaxKind.ImportKeyword
          ? 'dynamic'
          : (ts.isIdentifier(callee) && requirers.has(callee.text)) || isCreateRequire(callee)
            ? 'require'
            : null;
      if (loads) {
        const specifier = literal(node.arguments[0]);
        if (specifier === null) computed.push(`${where(node)} loads a computed module: ${node.getText(sf)}`);
        else found.push({ specifier, kind: loads });
      }
    }
    ts.forEachChild(node, visit);
  };
  // A `createRequire` variable declared below its first call is still a requirer: collect them first.
  ts.forEachChild(sf, function collect(node: ts.Node): void {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer &&
      isCreateRequire(node.initializer)
    )
      requirers.add(node.name.text);
    ts.forEachChild(node, collect);
  });
  visit(sf);
  const imports = found.map(({ specifier, kind }) => {
    const resolved = ts.resolveModuleName(specifier, join(root, file), compilerOptions, host).resolvedModule;
    const external = resolved ? resolved.isExternalLibraryImport === true : !specifier.startsWith('.');
    const target = resolved && !external ? relative(root, resolved.resolvedFileName) : null;
    const bare = specifier.startsWith('node:') ? null : specifier;
    const pkg =
      external && bare ? (bare.startsWith('@') ? bare.split('/').slice(0, 2).join('/') : bare.split('/')[0]!) : null;
    return { specifier, kind, target, pkg };
  });
  return { imports, computed };
}

const importsOf = (file: string): FileImports => importsOfText(file, readFileSync(join(root, file), 'utf8'));

const all = [...sources('src'), ...sources('adapters')];
const parsed = new Map(all.map((f) => [f, importsOf(f)]));
const graph = new Map(all.map((f) => [f, parsed.get(f)!.imports]));
const offenders = (files: readonly string[], bad: (i: ResolvedImport, file: string) => boolean) =>
  files.flatMap((f) =>
    graph
      .get(f)!
      .filter((i) => bad(i, f))
      .map((i) => `${f} imports ${i.specifier}`),
  );
const inside = (dir: string) => (f: string) => f.startsWith(dir);

/** The circles of a graph: its strongly connected components of more than one node (Tarjan), each sorted. */
function circles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const strong = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) strong(v);
  return found;
}

/** Each SDK may be imported only by the modules that wrap it. */
const SDK_OWNERS: Record<string, (file: string) => boolean> = {
  openai: (f) => f === 'src/agent/llm-client.ts' || f === 'src/agent/model-endpoint-check.ts',
  'node-schedule': inside('src/schedules/'),
  '@slack/bolt': inside('adapters/slack/'),
  '@slack/web-api': inside('adapters/slack/'),
  'discord.js': inside('adapters/discord/'),
  '@modelcontextprotocol/sdk': (f) =>
    f.startsWith('src/mcp/') || f.startsWith('src/sign-in/mcp/') || f.startsWith('src/questions/mcp/'),
  'prom-client': (f) => f === 'src/metrics/prometheus-metrics.ts',
  marked: inside('adapters/console/'),
  'marked-terminal': inside('adapters/console/'),
  koffi: (f) => f === 'src/runtime/process/malloc-trim.ts',
  ...Object.fromEntries(
    [
      'api',
      'core',
      'exporter-trace-otlp-http',
      'exporter-trace-otlp-proto',
      'resources',
      'sdk-trace-base',
      'semantic-conventions',
    ].map((p) => [`@opentelemetry/${p}`, (f: string) => f === 'src/telemetry/otel-tracing.ts']),
  ),
};

describe('architecture', () => {
  it('resolves imports the way TypeScript does (the checks below would otherwise see nothing)', () => {
    const resolved = [...graph.values()].flat().filter((i) => i.target !== null);
    expect(resolved.length).toBeGreaterThan(300);
    expect(graph.get('src/runtime/dispatcher.ts')!.map((i) => i.target)).toContain(
      'src/runtime/follow-ups/message-follow-up.ts',
    );
  });

  it('sees re-exports, type-only imports, import(), createRequire and computed loads, and resolves each', () => {
    // A probe in the chat port (a low layer): every line below reaches higher or names an SDK.
    const probe = 'src/chat/__probe__.ts';
    const text = [
      "export { App } from '@slack/bolt';",
      "export * from '../agent/runner.js';",
      "import type { Store } from '../store/store.js';",
      "import { type Tool, type ToolContext } from '../agent/tools/tool.js';",
      "import { type Metrics, noopMetrics } from '../metrics/metrics.js';",
      "import discord = require('discord.js');",
      "const { x } = await import('../runtime/dispatcher.js');",
      "const r = createRequire(import.meta.url); r('prom-client');",
      "createRequire(import.meta.url)('marked');",
      'const p = "x"; await import(p); r(p);',
    ].join('\n');
    const seen = importsOfText(probe, text);
    expect(seen.imports.map((i) => [i.specifier, i.kind, i.target ?? i.pkg])).toEqual([
      ['@slack/bolt', 'static', '@slack/bolt'],
      ['../agent/runner.js', 'static', 'src/agent/runner.ts'],
      ['../store/store.js', 'type', 'src/store/store.ts'],
      ['../agent/tools/tool.js', 'type', 'src/agent/tools/tool.ts'],
      ['../metrics/metrics.js', 'static', 'src/metrics/metrics.ts'],
      ['discord.js', 'require', 'discord.js'],
      ['../runtime/dispatcher.js', 'dynamic', 'src/runtime/dispatcher.ts'],
      ['prom-client', 'require', 'prom-client'],
      ['marked', 'require', 'marked'],
    ]);
    expect(seen.computed).toHaveLength(2);
    // Each of its own modules it names stands above the chat port: all five are upward imports.
    expect(
      seen.imports.filter((i) => i.target !== null && layerOf(i.target) > layerOf(probe)).map((i) => i.target),
    ).toEqual([
      'src/agent/runner.ts',
      'src/store/store.ts',
      'src/agent/tools/tool.ts',
      'src/metrics/metrics.ts',
      'src/runtime/dispatcher.ts',
    ]);
  });

  it('every file belongs to a layer', () => {
    expect(all.filter((f) => layerOf(f) < 0)).toEqual([]);
  });

  it('no module imports a layer above its own (type-only imports included)', () => {
    const upward = offenders(all, (i, f) => i.target !== null && layerOf(i.target) > layerOf(f));
    expect(upward).toEqual([]);
  });

  it('no modules import each other in a circle (type-only and dynamic imports included)', () => {
    const edges = new Map(
      all.map((f) => [f, new Set(graph.get(f)!.flatMap((i) => (i.target && graph.has(i.target) ? [i.target] : [])))]),
    );
    expect(circles(edges)).toEqual([]);
  });

  it('no folders import each other in a circle', () => {
    const edges = new Map<string, Set<string>>();
    for (const f of all) {
      const from = folderOf(f);
      const to = edges.get(from) ?? new Set<string>();
      for (const i of graph.get(f)!)
        if (i.target && graph.has(i.target) && folderOf(i.target) !== from) to.add(folderOf(i.target));
      edges.set(from, to);
    }
    expect(circles(edges)).toEqual([]);
  });

  it('no module loads a module whose name is computed (the checks could not see where it goes)', () => {
    expect(all.flatMap((f) => parsed.get(f)!.computed)).toEqual([]);
  });

  it('core (src/) never imports an adapter or a platform SDK; only main.ts composes adapters', () => {
    const bad = offenders(
      sources('src'),
      (i, f) =>
        i.pkg === 'discord.js' ||
        i.pkg?.startsWith('@slack/') === true ||
        (i.target?.startsWith('adapters/') === true && f !== 'src/main.ts'),
    );
    expect(bad).toEqual([]);
  });

  it('adapters reach the core only through src/chat (and shared leaf modules)', () => {
    const allowed = /^src\/(chat\/|net\/|errors\.ts$|logger\.ts$|config\.ts$|clock\.ts$)/;
    expect(
      offenders(sources('adapters'), (i) => i.target?.startsWith('src/') === true && !allowed.test(i.target)),
    ).toEqual([]);
  });

  it('commands do not import the runtime, and the agent does not import the database (in a feature home too)', () => {
    const commands = all.filter((f) => f.startsWith('src/commands/') || homePart(f, 'commands'));
    const runtime = (target: string | null) =>
      target !== null && (target.startsWith('src/runtime/') || homePart(target, 'runtime'));
    expect(offenders(commands, (i) => runtime(i.target))).toEqual([]);
    const agent = all.filter((f) => f.startsWith('src/agent/') || homePart(f, 'agent'));
    expect(offenders(agent, (i) => i.target?.startsWith('src/db/') === true)).toEqual([]);
  });

  it('only the store implementations, src/db/ and src/cluster/ reach the database drivers; the rest of the core talks to the Store', () => {
    // A feature home's store/ folder holds its tables' SQLite (sqlite-*.ts) and PostgreSQL (pg-*.ts) stores.
    const homeStore = (f: string, prefix: string) => homePart(f, 'store') && f.split('/').pop()!.startsWith(prefix);
    const sqliteOnly = (f: string) =>
      f.startsWith('src/store/sqlite/') || f.startsWith('src/db/') || homeStore(f, 'sqlite-');
    const postgresOnly = (f: string) =>
      f.startsWith('src/store/postgres/') ||
      f.startsWith('src/db/') ||
      f.startsWith('src/cluster/') ||
      homeStore(f, 'pg-');
    expect(offenders(all, (i, f) => i.pkg === 'better-sqlite3' && !sqliteOnly(f))).toEqual([]);
    expect(offenders(all, (i, f) => i.pkg === 'pg' && !postgresOnly(f))).toEqual([]);
    expect(offenders(all, (i, f) => i.pkg === 'drizzle-orm' && !sqliteOnly(f) && !postgresOnly(f))).toEqual([]);
    expect(
      offenders(
        all,
        (i, f) =>
          i.target?.startsWith('src/store/sqlite/') === true &&
          !f.startsWith('src/store/') &&
          !homeStore(f, 'sqlite-') &&
          f !== 'src/composition/sqlite-store.ts',
      ),
    ).toEqual([]);
  });

  it("the Slack adapter loads Bolt's classes through adapters/slack/bolt.ts, never Bolt's whole index (types only)", () => {
    expect(offenders(all, (i) => i.specifier === '@slack/bolt' && i.kind !== 'type')).toEqual([]);
  });

  it('each SDK is imported only by the module that wraps it', () => {
    expect(offenders(all, (i, f) => i.pkg !== null && i.pkg in SDK_OWNERS && !SDK_OWNERS[i.pkg]!(f))).toEqual([]);
  });

  it('prom-client is reached only through the dynamic import that METRICS_PORT triggers', () => {
    const prometheus = (target: string | null) =>
      target !== null && /^src\/metrics\/prometheus-(metrics|monitoring)\.ts$/.test(target);
    const loaded = (i: ResolvedImport) => i.kind === 'static' || i.kind === 'require';
    expect(
      offenders(all, (i, f) => prometheus(i.target) && loaded(i) && !f.startsWith('src/metrics/prometheus-')),
    ).toEqual([]);
    expect(
      graph
        .get('src/metrics/load-monitoring.ts')!
        .filter((i) => i.kind === 'dynamic')
        .map((i) => i.target),
    ).toEqual(['src/metrics/prometheus-monitoring.ts']);
  });

  it('OpenTelemetry is reached only through the dynamic import an OTLP endpoint triggers: nothing start-up loads statically imports it', () => {
    const loadedAtStart = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string): void => {
      if (loadedAtStart.has(file)) return;
      loadedAtStart.add(file);
      for (const i of graph.get(file) ?? []) {
        if (i.kind !== 'static' && i.kind !== 'require') continue;
        if (i.pkg) packages.add(i.pkg);
        if (i.target && graph.has(i.target)) visit(i.target);
      }
    };
    visit('src/main.ts');
    expect(loadedAtStart.has('src/telemetry/load-tracing.ts')).toBe(true);
    expect(loadedAtStart.has('src/telemetry/otel-tracing.ts')).toBe(false);
    expect([...packages].filter((p) => p.startsWith('@opentelemetry/'))).toEqual([]);
    expect(
      graph
        .get('src/telemetry/load-tracing.ts')!
        .filter((i) => i.kind === 'dynamic')
        .map((i) => i.target),
    ).toEqual(['src/telemetry/otel-tracing.ts']);
  });

  it("the MCP SDK's client and transports are loaded at the first connection (src/mcp/client-sdk.ts), never at start-up", () => {
    const client = (i: ResolvedImport) =>
      /^@modelcontextprotocol\/sdk\/client\/(index|sse|stdio|streamableHttp)\.js$/.test(i.specifier);
    expect(offenders(all, (i) => client(i) && i.kind !== 'type' && i.kind !== 'dynamic')).toEqual([]);
    expect(offenders(all, (i) => client(i) && i.kind === 'dynamic')).toEqual([
      'src/mcp/client-sdk.ts imports @modelcontextprotocol/sdk/client/index.js',
      'src/mcp/client-sdk.ts imports @modelcontextprotocol/sdk/client/sse.js',
      'src/mcp/client-sdk.ts imports @modelcontextprotocol/sdk/client/stdio.js',
      'src/mcp/client-sdk.ts imports @modelcontextprotocol/sdk/client/streamableHttp.js',
    ]);
  });

  it('marked and marked-terminal are loaded only on demand (a colour console), never at start-up', () => {
    const marked = (i: ResolvedImport) => i.pkg === 'marked' || i.pkg === 'marked-terminal';
    expect(offenders(all, (i) => marked(i) && i.kind !== 'type' && i.kind !== 'dynamic')).toEqual([]);
    expect(
      graph
        .get('adapters/console/markdown-renderer.ts')!
        .filter((i) => i.kind === 'dynamic')
        .map((i) => i.pkg),
    ).toContain('marked-terminal');
  });

  it('sees the modules createRequire loads, and no console.log outside the console adapter', () => {
    expect(
      graph
        .get('src/schedules/wake-timer.ts')!
        .filter((i) => i.kind === 'require')
        .map((i) => i.pkg),
    ).toContain('node-schedule');
    const texts = all.map((f) => [f, readFileSync(join(root, f), 'utf8')] as const);
    expect(
      texts.filter(([f, t]) => !f.startsWith('adapters/console/') && /console\.log\(/.test(t)).map(([f]) => f),
    ).toEqual([]);
  });
});

describe('one route out: each part of the adapter port held only by its holders', () => {
  // One program over the core and a probe beside it (the type checker resolves every name).
  const core = sources('src');
  const probe = 'src/runtime/__route_probe__.ts';
  const probeText = [
    "import type { ChatAdapter } from '../chat/chat-adapter.js';",
    "import type { Delivery } from '../chat/delivery.js';",
    "import type { PlatformReads } from '../chat/platform-reads.js';",
    "import type { Presence } from '../chat/presence.js';",
    "import type { ConversationRef } from '../chat/conversation-ref.js';",
    "import type { OutboxDeps } from '../outbox/outbox.js';",
    'export async function probe(deps: OutboxDeps, reads: PlatformReads, presence: Presence, ref: ConversationRef) {',
    "  const chat = deps.adapters.get('slack')!;",
    "  await chat.postMessage(ref, { text: 'x' });",
    '  const { editMessage } = chat;',
    "  await chat['postEphemeral'](ref, 'u', 'x');",
    '  await presence.setWorking(ref, null);',
    '  return [reads.capabilities.history, editMessage, chat.capabilities.files];',
    '}',
    'export type Whole = ChatAdapter;',
    'export type Part = Delivery;',
    "import type { presenceOver } from '../chat/presence-over-adapters.js';",
    "export const working = (adapters: Parameters<typeof presenceOver>[0]) => adapters.get('x')?.setWorking;",
  ].join('\n');
  // Resolved once while the suite is collected (several seconds of type checking on a busy machine), then asserted.
  const program = programOf(root, core, new Map([[probe, probeText]]));
  const inProbe = portReaches(root, program, [probe]);
  const inCore = portReaches(root, program, core);

  it('sees a part named, its members reached through any value that holds it, and the whole adapter; what others may hold passes', () => {
    expect(inProbe).toEqual([
      `${probe}:1 reaches ChatAdapter of the whole adapter`,
      `${probe}:2 reaches Delivery of delivery`,
      `${probe}:9 reaches postMessage of delivery`,
      `${probe}:10 reaches editMessage of delivery`,
      `${probe}:11 reaches postEphemeral of delivery`,
      `${probe}:13 reaches capabilities of delivery`,
      `${probe}:13 reaches files of delivery`,
      `${probe}:15 reaches ChatAdapter of the whole adapter`,
      `${probe}:16 reaches Delivery of delivery`,
      `${probe}:18 reaches setWorking of an adapter's presence`,
    ]);
  });

  it('outside the composition root, only the outbox holds delivery and only the presence port an adapter presence', () => {
    expect(core.length).toBeGreaterThan(300);
    expect(inCore).toEqual([]);
  });
});
