import type { App, AppOptions } from './app-contract.js';
import type { ChatAdapter } from './chat/chat-adapter.js';
import type { SurfaceSink } from './chat/surface-sink.js';
import type { ThreadOpener } from './outbox/thread-opener.js';
import type { Presence } from './chat/presence.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import type { AccessPolicy } from './access/access-policy.js';
import type { ScheduleRights } from './schedules/schedule-rights.js';
import type { OAuthRuntime } from './sign-in/mcp/oauth-setup.js';
import type { Metrics } from './metrics/metrics.js';
import { countingSink, countingSurfaces } from './metrics/counting-sink.js';
import { checkHealth } from './metrics/health-check.js';
import type { Outbox } from './outbox/outbox.js';
import { reachesPrivately } from './outbox/secret-notice.js';
import type { Dispatcher } from './runtime/dispatcher.js';
import type { ElicitationDesk } from './questions/mcp/elicitation-desk.js';
import { carriedQuestions } from './questions/runtime/elicitation-waits.js';
import { catchUpMissedMessages } from './runtime/restarts/catch-up.js';
import { DEDUPE_RETENTION_MS, type Heartbeat } from './runtime/process/heartbeat.js';
import type { Cluster, ClusterHooks } from './runtime/process/cluster-hooks.js';
import {
  recoverTakenOverRun,
  requeueInterruptedRuns,
  showRecoveredSession,
  type InterruptedRun,
} from './runtime/restarts/recovery.js';
import type { RunCoordinator } from './runs/runtime/run-coordinator.js';
import { scheduleLauncherFor } from './schedules/runtime/schedule-launch-wiring.js';
import { startSignIns } from './sign-in/runtime/sign-in-start.js';
import type { Scheduling } from './schedules/scheduling.js';
import type { SandboxParts } from './sandbox/agent/sandbox-wiring.js';
import type { ErrandStore } from './composition/errand-store.js';
import type { WebConsole } from './web-console/web-console-wiring.js';

/** How long a stop waits for the posts already on their way; the rest is posted after the next start. */
const OUTBOX_STOP_GRACE_MS = 3000;

/** Catch-up after a restart: bounded, and never older than de-duplication remembers (10 minutes' margin for clock skew). */
const CATCH_UP_LIMITS = {
  conversations: 200,
  messagesPerConversation: 50,
  totalMs: 60_000,
  maxAgeMs: DEDUPE_RETENTION_MS - 10 * 60_000,
};

/** The parts `createApp` built, in the order start brings them up (and stop takes them down, reversed). */
export interface LifecycleParts {
  readonly config: Config;
  readonly options: Pick<AppOptions, 'externalTools' | 'monitoring'>;
  readonly store: ErrandStore;
  /** The app opened the store itself: it closes it at stop. */
  readonly ownsStore: boolean;
  readonly adapters: ReadonlyMap<string, ChatAdapter>;
  readonly cluster: Cluster;
  readonly coordinator: RunCoordinator;
  readonly dispatcher: Dispatcher;
  readonly heartbeat: Heartbeat;
  readonly outbox: Outbox;
  readonly scheduling: Scheduling;
  readonly sandbox: SandboxParts;
  readonly web: WebConsole;
  readonly elicitations: ElicitationDesk;
  /** The App Home's and the forms' way in; the elicitation members are added at start. */
  readonly surfaces: Pick<SurfaceSink, 'onHomeOpened' | 'onScheduleForm' | 'onDisconnect'>;
  readonly presence: Presence;
  readonly threads: ThreadOpener;
  readonly access: AccessPolicy;
  readonly rights: ScheduleRights;
  /** Where the per-person sign-in endpoint is kept while it runs (the commands read it through this). */
  readonly signIns: { current: OAuthRuntime | null };
  readonly maxAttempts: number;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/**
 * Errand's start and stop: the order in which the parts come up (recovery of interrupted runs first, then the
 * platforms, then what was recorded and not posted, then new work) and go down (new work refused first, the
 * posts on their way given a grace, the store closed last). Kept apart from the wiring in app.ts so that
 * each reads as one sequence.
 */
export function appLifecycle(parts: LifecycleParts): Pick<App, 'start' | 'stop' | 'catchUp'> {
  const { config, options, store, adapters, cluster, coordinator, dispatcher, heartbeat, outbox, scheduling } = parts;
  const { sandbox, web, elicitations, presence, clock, logger, metrics } = parts;
  const { monitoring } = options;
  const { runs, conversations } = store;
  const recovery = {
    posts: outbox,
    logger,
    maxAttempts: parts.maxAttempts,
    askTimeoutMs: config.ASK_TIMEOUT_MINUTES * 60_000,
    carried: carriedQuestions,
  };
  const counted = (run: InterruptedRun | null) => {
    // A run that had recorded its final answer before its process died is completed, not interrupted; one waiting on a question goes on.
    if (run && run.action !== 'waiting')
      metrics.runFinished(run.action === 'finished' ? 'completed' : 'interrupted', null);
    return run && showRecoveredSession(run, { presence, conversations, logger });
  };
  const clusterHooks: ClusterHooks = {
    pump: () => coordinator.pump(),
    answered: () => void elicitations.recheck(),
    recoverAll: async () => (await requeueInterruptedRuns(recovery)).map((r) => counted(r)!),
    recoverRun: async (runId) => counted(await recoverTakenOverRun(runId, recovery)),
    schedules: scheduling.scheduler,
  };

  let started = false;
  let stopping = false;
  /** Aborted at the start of `stop()`: what waits for the outbox (a schedule's post) gives up rather than hold the shutdown. */
  const stopped = new AbortController();
  let catchingUp: Promise<void> = Promise.resolve();
  const warnIfFails = (what: string) => (err: unknown) => logger.warn({ err }, `${what} failed`);

  const lifecycle: Pick<App, 'start' | 'stop' | 'catchUp'> = {
    async start() {
      if (started) return;
      started = true;
      await cluster.recover(clusterHooks);
      const tools = options.externalTools;
      parts.signIns.current = await startSignIns({
        config,
        connections: store.connections,
        runs,
        coordinator,
        outbox,
        refOf: (id) => conversations.refOf(id),
        privately: (p) => reachesPrivately(adapters.get(p)),
        ...(tools ? { tools } : {}),
        clock,
        logger,
        metrics,
        listen: web.oauthListens,
      });
      await web.start(parts.signIns.current?.routes ?? null);
      tools?.bindElicitation?.(elicitations);
      await tools?.start?.();
      const sinks = {
        ...parts.surfaces,
        onElicitation: elicitations.handle.bind(elicitations),
        carriedOverElicitations: elicitations.carriedOverTo.bind(elicitations),
      };
      for (const a of adapters.values()) {
        const inbound = monitoring ? countingSink(dispatcher, a.platform, metrics) : dispatcher;
        await a.start(inbound, monitoring ? countingSurfaces(sinks, a.platform, metrics) : sinks);
      }
      // What was recorded and not posted before this start goes first: new work posts behind it.
      await outbox.start();
      const memberRoles = (p: string) => adapters.get(p)?.capabilities.memberRoles;
      const { access, rights, threads } = parts;
      const launcher = { platforms: adapters, memberRoles, store, outbox, threads, coordinator, access, rights };
      await scheduling.scheduler.start(scheduleLauncherFor({ ...launcher, clock, logger, stopping: stopped.signal }));
      heartbeat.start();
      sandbox.retention.start();
      await cluster.start(clusterHooks);
      await coordinator.pump();
      const toolServers = tools?.status ? { toolServers: () => tools.status?.() ?? [] } : {};
      await monitoring?.start({
        health: () => checkHealth({ database: store.probe, adapters, ...toolServers, sandbox: () => sandbox.status }),
        gauges: () => store.probe.gauges(),
        ...(store.probe.pool ? { pool: store.probe.pool } : {}),
      });
      // Messages sent while Errand was down, past the platforms' redeliveries; start-up does not wait for it.
      void lifecycle.catchUp();
    },
    catchUp() {
      if (stopping) return catchingUp;
      const limits = CATCH_UP_LIMITS;
      catchingUp = catchingUp.then(() =>
        catchUpMissedMessages({
          queries: store.catchUp,
          adapters,
          sink: dispatcher,
          clock,
          logger,
          limits,
          cancelled: () => stopping,
        }).then(() => undefined, warnIfFails('catching up on missed messages')),
      );
      return catchingUp;
    },
    async stop() {
      stopping = true;
      stopped.abort();
      dispatcher.stop();
      await catchingUp;
      await monitoring?.stop().catch(warnIfFails('closing the monitoring server'));
      heartbeat.stop();
      sandbox.retention.stop();
      await scheduling.scheduler.stop();
      await coordinator.shutdown();
      await cluster.stop().catch(warnIfFails('leaving the cluster'));
      await outbox.stop(OUTBOX_STOP_GRACE_MS);
      for (const adapter of adapters.values()) {
        await adapter
          .stop()
          .catch((err: unknown) => logger.warn({ err, platform: adapter.platform }, 'adapter stop failed'));
      }
      await options.externalTools?.close?.().catch(warnIfFails('closing the tool servers'));
      await parts.signIns.current?.close().catch(warnIfFails('closing the sign-in endpoint'));
      await web.stop().catch(warnIfFails('closing the web console'));
      if (parts.ownsStore) await store.close();
    },
  };
  return lifecycle;
}
