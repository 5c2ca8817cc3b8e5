import { hostname } from 'node:os';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccessPolicy, Person } from '../access/access-policy.js';
import { createAdminSignIn, type AdminSignIn } from '../admin/admin-sign-in.js';
import { singleProcessView, type ClusterView } from '../admin/cluster-view.js';
import { mayUseConsole } from '../admin/console-people.js';
import { NO_SANDBOX, type SandboxStatus } from '../sandbox/sandbox-status.js';
import { auditTools } from '../agent/tools/audited-tools.js';
import type { ToolRegistry } from '../agent/tools/tool-registry.js';
import { approvalAudit, type ApprovalAudit } from '../audit/approval-audit.js';
import { createAuditLog, type AuditLog } from '../audit/audit-log.js';
import { recordConfigurationChange } from '../audit/config-audit.js';
import type { AdapterLifecycle } from '../chat/adapter-lifecycle.js';
import type { Clock } from '../clock.js';
import type { CommandDeps, RunControl } from '../commands/command-deps.js';
import type { ScheduleEditor } from '../schedules/commands/schedule-editor.js';
import type { Config } from '../config.js';
import type { PgDb } from '../db/pg-client.js';
import type { Logger } from '../logger.js';
import { checkHealth, type ToolServerState } from '../metrics/health-check.js';
import { stopNotice } from '../run-records/stop-notice.js';
import type { ScheduleService } from '../schedules/schedule-service.js';
import type { MemoryStore } from '../memory/memory-store.js';
import type { Store, StoreWith } from '../store/store.js';
import { createPgClusterView } from '../cluster/pg-cluster-view.js';
import { loadConsoleAssets } from './console-assets.js';
import type { WebConsoleDeps } from './console-deps.js';
import { createConsoleRouter } from './console-router.js';
import { createLiveFeeds } from './live-feed.js';
import { startWebServer, type WebServer } from './web-server.js';

/** How the composition root asks for the console (main.ts always; tests and benchmarks when they want one). */
export interface WebConsoleOptions {
  /** Default WEB_PORT (0: any free port). */
  readonly port?: number;
  /** Default 127.0.0.1 without PUBLIC_URL (links then only work on this machine), every interface with it. */
  readonly host?: string;
  /** How often live pages look for changes while someone watches (default 250 ms). */
  readonly pollMs?: number;
  /** The code sandbox's state for the Overview (default: not configured). */
  readonly sandbox?: SandboxStatus;
}

/** What the console reaches in the running app, handed over once the app has built it. */
export interface ConsoleParts {
  readonly coordinator: RunControl;
  readonly editor: ScheduleEditor;
  readonly schedules: Pick<ScheduleService, 'find'>;
  readonly adapters: ReadonlyMap<string, AdapterLifecycle>;
  readonly toolServers?: () => readonly ToolServerState[];
}

/** The web console as the app holds it: the audit hooks at once, the server from `start` to `stop`. */
export interface WebConsole {
  readonly audit: AuditLog;
  readonly approvals: ApprovalAudit;
  /** Every tool call through the registry becomes an audit entry. */
  tools(registry: ToolRegistry): ToolRegistry;
  /** False when the console serves WEB_PORT: the OAuth routes are mounted on it instead of listening there. */
  readonly oauthListens: boolean;
  /** Wires `/admin` into the commands and hands the console the app's parts. */
  attach(commands: CommandDeps, parts: ConsoleParts): void;
  start(oauthRoutes: ((req: IncomingMessage, res: ServerResponse) => void) | null): Promise<void>;
  stop(): Promise<void>;
  /** Where the console listens (`http://127.0.0.1:<port>`), or null when it does not. */
  localUrl(): string | null;
}

interface Dependencies {
  readonly config: Config;
  /** The core Store, with the memories the console lists and forgets. */
  readonly store: StoreWith<{ readonly memory: MemoryStore }>;
  readonly access: AccessPolicy;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly options?: WebConsoleOptions;
}

/** Whether anyone could sign in: an admin listed (by id or role), or, with no `access` key, the console adapter's user. */
function someoneMaySignIn(config: Config, access: AccessPolicy): boolean {
  return access.configured
    ? (config.file.settings.access?.admins.length ?? 0) > 0
    : config.platforms.includes('console');
}

function clusterViewOf(store: Store, adapters: ReadonlyMap<string, AdapterLifecycle>, startedAt: number): ClusterView {
  const pg = store as Store & { db?: PgDb; ownership?: { processId: string } | null };
  if (pg.db !== undefined && pg.ownership) return createPgClusterView(pg.db, pg.ownership.processId);
  return singleProcessView(
    `${hostname()} (pid ${process.pid})`,
    () => adapters.get('discord')?.connectionState().connected === true,
    startedAt,
  );
}

/** What the thread reads when the console stopped its run: the usual stop note where the admin is of that platform. */
function consoleStopNote(conversationId: string, by: Person, taskId: number | null): string {
  if (conversationId.startsWith(`${by.platform}:`)) return stopNotice(by.userId, taskId, 0);
  return taskId !== null ? `⏹️ Stopped #${taskId} by an admin (web console).` : '⏹️ Stopped by an admin (web console).';
}

/** Builds the console's parts; nothing listens before `start`, and only when asked for and someone may sign in. */
export function createWebConsole(d: Dependencies): WebConsole {
  const { config, store, access, clock, logger } = d;
  const log = logger.child({ part: 'web-console' });
  const audit = createAuditLog(store.audit, () => clock.now(), log);
  const serves = d.options !== undefined && someoneMaySignIn(config, access);
  const publicUrl = config.PUBLIC_URL;
  let server: WebServer | null = null;
  /** Why the console is not listening although asked to (the port was taken); null otherwise. */
  let failed: string | null = null;
  let parts: ConsoleParts | null = null;
  let commands: CommandDeps | null = null;
  const localUrl = () => (server ? `http://127.0.0.1:${server.port}` : null);
  const signIn: AdminSignIn = createAdminSignIn({
    store: store.admin,
    now: () => clock.now(),
    baseUrl: () => publicUrl ?? localUrl() ?? '',
    mayUse: (person) => mayUseConsole(access, person),
  });

  const depsOf = (p: ConsoleParts, c: CommandDeps): WebConsoleDeps => ({
    signIn,
    queries: store.consoleQueries,
    auditStore: store.audit,
    audit,
    tasks: store.tasks,
    memory: store.memory,
    async stopRun(conversationId, by) {
      const r = await p.coordinator.stopConversation(conversationId, false);
      if (r.stoppedRun) c.note(conversationId, consoleStopNote(conversationId, by, r.stoppedTaskId));
      return r;
    },
    schedules: {
      find: (id) => p.schedules.find(id),
      onAction: (a, person) => p.editor.onAction(a, person),
      onSubmit: (f) => p.editor.onSubmit(f),
    },
    connections: c.connections ?? null,
    overview: {
      health: () =>
        checkHealth({
          database: store.probe,
          adapters: p.adapters,
          ...(p.toolServers ? { toolServers: p.toolServers } : {}),
        }),
      cluster: clusterViewOf(store, p.adapters, clock.now()),
      sandbox: d.options?.sandbox ?? NO_SANDBOX,
    },
    refOf: (id) => store.conversations.refOf(id),
    now: () => clock.now(),
    live: createLiveFeeds({ everyMs: d.options?.pollMs ?? 250, timers: clock, logger: log }),
    timers: clock,
    secure: publicUrl?.startsWith('https:') === true,
    logger: log,
  });

  return {
    audit,
    approvals: approvalAudit(audit),
    tools: (registry) => auditTools(registry, audit),
    oauthListens: !serves,
    localUrl,
    attach(c, p) {
      commands = c;
      parts = p;
      c.admin = {
        unavailable: () =>
          server
            ? null
            : (failed ??
              (serves
                ? 'The web console is starting; try again in a moment.'
                : 'The web console is not served by this Errand process.')),
        mayUse: (person) => signIn.mayUse(person),
        async issueLink(person) {
          await store.admin
            .sweep(clock.now())
            .catch((err: unknown) => log.warn({ err }, 'sweeping expired console links failed'));
          return signIn.issueLink(person);
        },
        localNote: () =>
          publicUrl
            ? null
            : 'PUBLIC_URL is not set, so this link only opens in a browser on the machine Errand runs on.',
      };
    },
    async start(oauthRoutes) {
      await recordConfigurationChange(
        store.audit,
        audit,
        config.file.settings as unknown as Record<string, unknown>,
      ).catch((err: unknown) => log.error({ err }, 'recording the configuration in the audit log failed'));
      if (!serves || !parts || !commands) return;
      const router = createConsoleRouter(depsOf(parts, commands), loadConsoleAssets());
      const host = d.options?.host ?? (publicUrl ? '0.0.0.0' : '127.0.0.1');
      const port = d.options?.port ?? config.WEB_PORT;
      try {
        server = await startWebServer({ port, host, console: router, oauth: oauthRoutes, logger: log });
      } catch (err) {
        // The sign-in pages of MCP servers need the port (as before the console): that stops start-up. The console alone does not.
        if (oauthRoutes || (err as { code?: unknown }).code !== 'EADDRINUSE') throw err;
        failed = `The web console is not available: WEB_PORT ${port} was in use when Errand started. Set WEB_PORT to a free port and restart Errand.`;
        log.warn({ port }, 'the web console could not listen: WEB_PORT is in use');
        return;
      }
      log.info(
        { port: server.port, host, url: publicUrl ? `${publicUrl}/admin` : `${localUrl()}/admin` },
        'web console listening',
      );
    },
    async stop() {
      const s = server;
      server = null;
      await s?.close();
    },
  };
}
