import { createSummaryWriter } from './agent/context-summary.js';
import { createMemoryTools } from './agent/tools/memory-tools.js';
import { createControlTools } from './agent/tools/control-tools.js';
import { createHistoryTools } from './agent/tools/history-tools.js';
import { createScheduleTools, SCHEDULES_PROMPT } from './agent/tools/schedule-tools.js';
import { createTaskTools } from './agent/tools/task-tools.js';
import { createToolRegistry } from './agent/tools/tool-registry.js';
import type { ToolDefinition } from './agent/tools/tool.js';
import { createBudget } from './budget/budget.js';
import { unpricedWarning } from './budget/pricing.js';
import { presenceOver } from './chat/presence-over-adapters.js';
import { threadOpenerOver } from './chat/thread-opener.js';
import { conversationKey } from './chat/conversation-ref.js';
import { systemClock } from './clock.js';
import type { CommandDeps } from './commands/command-deps.js';
import { SCHEDULES_HELP } from './commands/schedules-command.js';
import { createScheduleManagement } from './commands/schedule-management.js';
import { createScheduleRights } from './access/schedule-rights.js';
import { createWhenInterpreter } from './agent/when-interpreter.js';
import { createAccessPolicy } from './access/access-policy.js';
import { createAuthority } from './runtime/authority.js';
import { silentLogger } from './logger.js';
import { countingSink, countingSurfaces } from './metrics/counting-sink.js';
import { checkHealth } from './metrics/health-check.js';
import { traceTools } from './agent/tools/traced-tools.js';
import { createRunTracer } from './runtime/run-tracing.js';
import { noopTracing } from './telemetry/tracing.js';
import { noopMetrics } from './metrics/metrics.js';
import { connectionsCommandDeps } from './commands/connections-command-deps.js';
import { connectionsOnHome } from './commands/connections-home.js';
import type { OAuthRuntime } from './mcp/oauth/oauth-setup.js';
import { startSignIns } from './runtime/sign-in-start.js';
import { createElicitationDesk } from './runtime/elicitation-waits.js';
import { reachesPrivately } from './outbox/secret-notice.js';
import { Dispatcher } from './runtime/dispatcher.js';
import { attachmentIntakeFor, filesOutOver } from './runtime/sandbox-files.js';
import { catchUpMissedMessages } from './runtime/catch-up.js';
import { DEDUPE_RETENTION_MS, Heartbeat } from './runtime/heartbeat.js';
import { createOutbox } from './outbox/outbox.js';
import { createLocalCluster, type ClusterHooks } from './runtime/cluster.js';
import { recoverTakenOverRun, requeueInterruptedRuns, showRecoveredSession, type InterruptedRun } from './runtime/recovery.js';
import { RunCoordinator } from './runtime/run-coordinator.js';
import { finishOpenWork } from './runtime/finish-open-work.js';
import { scheduleLauncherFor } from './runtime/schedule-launch-wiring.js';
import { createScheduling } from './schedules/scheduling.js';
import { setUpSkills } from './runtime/skills-setup.js';
import { openStore } from './store/open-store.js';
import { createWebConsole } from './web-console/web-console-wiring.js';
import { setUpSandbox } from './sandbox-wiring.js';

import type { App, AppOptions } from './app-contract.js';
import { createAppModel } from './app-model.js';

export type { App, AppOptions, ManagedToolSource } from './app-contract.js';

/** Attempts a task gets, counting transient failures and restarts that interrupted it. */
const MAX_TASK_ATTEMPTS = 3;
/** How long a stop waits for the posts already on their way; the rest is posted after the next start. */
const OUTBOX_STOP_GRACE_MS = 3000;

/** Catch-up after a restart: bounded, and never older than de-duplication remembers (10 minutes' margin for clock skew). */
const CATCH_UP_LIMITS = { conversations: 200, messagesPerConversation: 50, totalMs: 60_000, maxAgeMs: DEDUPE_RETENTION_MS - 10 * 60_000 };

/** Builds Errand from its parts (opening the store when none is given); nothing starts until `start()`. */
export async function createApp(options: AppOptions): Promise<App> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger();
  const ownsStore = options.store === undefined;
  const store = options.store ?? (await openStore(config, clock));
  const adapters = new Map(options.adapters.map((a) => [a.platform, a]));
  const { monitoring } = options;
  const metrics = monitoring?.metrics ?? noopMetrics;
  const cluster = options.cluster ?? createLocalCluster();

  const { conversations, transcript, tasks, runs, dedupe } = store;
  const tracing = options.tracing ?? noopTracing;
  const runTracer = createRunTracer(tracing, store.traces, logger, clock, config.ERRAND_SECRET_KEY);
  const access = createAccessPolicy(config.file.settings.access);
  const authority = createAuthority({ access, runs, tasks });
  const filesOut = options.filesOut ?? filesOutOver({ outbox: () => outbox, filesOf: (p) => adapters.get(p)?.capabilities.files ?? null, logger });
  const sandbox = await setUpSandbox({ settings: config.file.settings.sandbox, store: store.workspaces, clock, logger, filesOut, probe: options.sandboxProbe, privatePaths: [process.cwd(), config.DATABASE_PATH, config.file.path ?? ''] });
  const consoleSandbox = { state: () => ({ configured: true as const, healthy: sandbox.status === 'available', summary: sandbox.summary }) };
  const web = createWebConsole({ config, store, access, clock, logger, ...(options.webConsole ? { options: { sandbox: consoleSandbox, ...options.webConsole } } : {}) });
  const outbox = createOutbox({
    store,
    clock,
    logger,
    adapters,
    refOf: (id) => conversations.refOf(id),
    onQuestionPosted: (runId, messageId) => runs.setQuestionMessage(runId, messageId),
    ...(options.outboxBackoffMs ? { backoffMs: options.outboxBackoffMs } : {}),
    // Shared database: rows left by a process that died holding their claim are picked up once it lapses.
    ...(options.cluster ? { sweepEveryMs: config.RUN_LEASE_SECONDS * 1000 } : {}),
    tracing: { tracing, parentOf: (runId) => runTracer.parentOf(runId) },
  });
  const llm = createAppModel({ config, options, logger, metrics, tracing, parentOf: (id) => runTracer.parentOf(id) });

  const scheduling = createScheduling({
    store: store.schedules,
    clock,
    logger,
    config,
    metrics,
    // Other processes on the database re-arm what changes here (a no-op for one process).
    announce: (scheduleId) => cluster.wake('schedule', String(scheduleId)),
    ...(options.scheduleTimer ? { timer: options.scheduleTimer } : {}),
  });
  const rights = createScheduleRights(access);
  const tools: ToolDefinition[] = [...createControlTools(), ...createTaskTools(tasks, access), ...createScheduleTools(scheduling.service, rights), ...createHistoryTools((p) => adapters.get(p)), ...createMemoryTools(store.memory, (p) => access.isAdmin(p)), ...sandbox.tools];
  const skills = await setUpSkills({ config, pins: store.skills, access, clock, logger, sandboxAvailable: () => sandbox.status === 'available' });
  tools.push(...skills.tools);
  const promptExtras: string[] = [SCHEDULES_PROMPT];
  const { usage } = store;
  // Processes sharing the database charge the same usage: each check reads it there, not from this process's memory.
  const sharedUsage = options.cluster !== undefined || config.DATABASE_URL !== undefined;
  const { limits, pricing, channels } = config.file.settings;
  const unpriced = unpricedWarning(pricing, limits, [config.OPENAI_MODEL, ...Object.values(channels).flatMap((c) => (c.model ? [c.model] : []))]);
  if (unpriced) logger.warn(unpriced);
  const budget = createBudget({ store: usage, cost: store.cost, limits, pricing, now: () => clock.now(), shared: sharedUsage });

  // The core never holds an adapter: it writes through the outbox (content) and the presence port (status).
  const presence = presenceOver(adapters);
  const threads = threadOpenerOver(adapters);
  const userTimezone = async (platform: string, userId: string) => (await adapters.get(platform)?.capabilities.timezone?.fetchUserTimezone(userId).catch(() => null)) ?? null;
  const coordinator = new RunCoordinator({
    data: { store, conversations, transcript, tasks, runs, grants: store.grants, posts: outbox, changes: outbox, approvals: web.approvals },
    platforms: { has: (platform) => adapters.has(platform), presence, userTimezone },
    agent: {
      llm,
      tools: web.tools(traceTools(createToolRegistry(tools, options.externalTools), tracing, new Set(tools.map((t) => t.name)), (id) => runTracer.parentOf(id))),
      promptExtras,
      budget,
      channels,
      streaming: config.STREAMING,
      memory: { store: store.memory, writeSummary: createSummaryWriter(llm, config.COMPACTION_MODEL), memoryTokens: config.MEMORY_TOKEN_BUDGET },
      runTracer,
      skills: skills.runs,
    },
    scheduleRunEnded: (id, result) => scheduling.service.recordRunResult(id, result),
    cluster,
    clock,
    logger,
    metrics,
    limits: {
      maxConcurrentRuns: config.MAX_CONCURRENT_RUNS,
      maxSteps: config.MAX_STEPS,
      maxRunMs: config.MAX_RUN_MINUTES * 60_000,
      contextBudget: config.CONTEXT_TOKEN_BUDGET,
      askTimeoutMs: config.ASK_TIMEOUT_MINUTES * 60_000,
      defaultTimezone: config.DEFAULT_TIMEZONE,
      maxAttempts: MAX_TASK_ATTEMPTS,
      retryDelayMs: options.taskRetryDelayMs ?? ((attempts) => 30_000 * 2 ** (attempts - 1)),
    },
  });
  const management = createScheduleManagement({
    service: scheduling.service,
    rights,
    interpretWhen: createWhenInterpreter(llm),
    userTimezone,
    defaultTimezone: config.DEFAULT_TIMEZONE,
    now: () => clock.now(),
    home: { openWork: store.openWork, runs, authority, parseConversation: (id) => conversations.refOf(id), memories: store.memory },
  });
  /** Per-person OAuth (DESIGN.md "Signing in to MCP servers"): the sign-in endpoint on WEB_PORT, from start to stop. */
  let oauth: OAuthRuntime | null = null;
  const connections = connectionsCommandDeps(config, () => oauth, options.externalTools);
  const commandDeps: CommandDeps = {
    authority,
    note: (conversationId, text) =>
      void outbox.record(conversationId, null, { purpose: 'note', text }).catch((err: unknown) => logger.error({ err, conversationId }, 'recording a note failed')),
    conversations,
    tasks,
    runs,
    coordinator,
    schedules: (cmd) => management.command(cmd),
    schedulesHelp: SCHEDULES_HELP,
    usage: { store: usage, cost: store.cost, limits, pricing, isAdmin: (p) => access.isAdmin(p), now: () => clock.now() },
    connections,
    memory: { store: store.memory, isAdmin: (p) => access.isAdmin(p) },
    skills: skills.command,
  };
  web.attach(commandDeps, { coordinator, editor: management.editor, schedules: scheduling.service, adapters, ...(options.externalTools?.status ? { toolServers: () => options.externalTools?.status?.() ?? [] } : {}) });
  // The App Home: open work and schedules, and the person's MCP sign-ins with Disconnect.
  const surfaces = skills.onHome(connectionsOnHome(management.surfaces, connections));
  const attachments = attachmentIntakeFor({ config, store, clock, logger, workspace: options.workspaceInputs ?? (sandbox.status === 'available' ? sandbox.inputs : undefined) });
  const dispatcher = new Dispatcher({
    data: { store, conversations, tasks, runs, dedupe, changes: outbox, claimWithMessage: true },
    coordinator,
    platforms: { has: (platform) => adapters.has(platform), threads, presence },
    clock,
    logger,
    commands: commandDeps,
    rules: { access, authority, budget },
    attachments,
    scheduleManagement: { editor: management.editor },
  });
  const heartbeat = new Heartbeat({ runs, coordinator, dedupe, clock, logger, maxConcurrentRuns: config.MAX_CONCURRENT_RUNS, periodMs: config.HEARTBEAT_SECONDS * 1000 });

  /** Whether a notice in this conversation reaches only its person (Slack ephemeral, the console), so a link may go there. */
  const privateIn = (conversationId: string) => adapters.get(conversations.refOf(conversationId)?.platform ?? '')?.privateNotices === true;
  const elicitations = createElicitationDesk({ posts: outbox, store: store.elicitations, runs, coordinator, cluster, clock, askTimeoutMs: config.ASK_TIMEOUT_MINUTES * 60_000, logger: logger.child({ part: 'elicitation' }), privateIn });

  const recovery = { posts: outbox, logger, maxAttempts: MAX_TASK_ATTEMPTS, askTimeoutMs: config.ASK_TIMEOUT_MINUTES * 60_000 };
  const counted = (run: InterruptedRun | null) => {
    // A run that had recorded its final answer before its process died is completed, not interrupted; one waiting on a question goes on.
    if (run && run.action !== 'waiting') metrics.runFinished(run.action === 'finished' ? 'completed' : 'interrupted', null);
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
  const app: App = {
    store,
    dispatcher,
    coordinator,
    heartbeat,
    conversations,
    transcript,
    tasks,
    runs,
    schedules: scheduling.service,
    outbox,
    filesOut,
    webConsole: web,
    workspaces: sandbox.inputs,
    async start() {
      if (started) return;
      started = true;
      await cluster.recover(clusterHooks);
      oauth = await startSignIns({ config, connections: store.connections, runs, coordinator, outbox, refOf: (id) => conversations.refOf(id), privately: (p) => reachesPrivately(adapters.get(p)), ...(options.externalTools ? { tools: options.externalTools } : {}), clock, logger, metrics, listen: web.oauthListens });
      await web.start(oauth?.routes ?? null);
      options.externalTools?.bindElicitation?.(elicitations);
      await options.externalTools?.start?.();
      const sinks = { ...surfaces, onElicitation: elicitations.handle.bind(elicitations), carriedOverElicitations: elicitations.carriedOverTo.bind(elicitations) };
      for (const a of adapters.values()) {
        await a.start(monitoring ? countingSink(dispatcher, a.platform, metrics) : dispatcher, monitoring ? countingSurfaces(sinks, a.platform, metrics) : sinks);
      }
      // What was recorded and not posted before this start goes first: new work posts behind it.
      await outbox.start();
      await scheduling.scheduler.start(scheduleLauncherFor({ platforms: adapters, memberRoles: (p) => adapters.get(p)?.capabilities.memberRoles, store, outbox, threads, coordinator, access, rights, clock, logger, stopping: stopped.signal }));
      heartbeat.start();
      sandbox.retention.start();
      await cluster.start(clusterHooks);
      await coordinator.pump();
      const tools = options.externalTools;
      await monitoring?.start({
        health: () => checkHealth({ database: store.probe, adapters, ...(tools?.status ? { toolServers: () => tools.status?.() ?? [] } : {}), sandbox: () => sandbox.status }),
        gauges: () => store.probe.gauges(),
      });
      // Messages sent while Errand was down, past the platforms' redeliveries; start-up does not wait for it.
      void app.catchUp();
    },
    catchUp() {
      if (stopping) return catchingUp;
      catchingUp = catchingUp.then(() =>
        catchUpMissedMessages({ queries: store.catchUp, adapters, sink: dispatcher, clock, logger, limits: CATCH_UP_LIMITS, cancelled: () => stopping }).then(
          () => undefined,
          (err: unknown) => logger.warn({ err }, 'catching up on missed messages failed'),
        ),
      );
      return catchingUp;
    },
    finishOpenWork: (silenced) => finishOpenWork({ coordinator, runs, outbox }, silenced.map(conversationKey)),
    async stop() {
      stopping = true;
      stopped.abort();
      dispatcher.stop();
      await catchingUp;
      await monitoring?.stop().catch((err: unknown) => logger.warn({ err }, 'closing the monitoring server failed'));
      heartbeat.stop();
      sandbox.retention.stop();
      await scheduling.scheduler.stop();
      await coordinator.shutdown();
      await cluster.stop().catch((err: unknown) => logger.warn({ err }, 'leaving the cluster failed'));
      await outbox.stop(OUTBOX_STOP_GRACE_MS);
      for (const adapter of adapters.values()) {
        await adapter.stop().catch((err: unknown) => logger.warn({ err, platform: adapter.platform }, 'adapter stop failed'));
      }
      await options.externalTools?.close?.().catch((err: unknown) => logger.warn({ err }, 'closing the tool servers failed'));
      await oauth?.close().catch((err: unknown) => logger.warn({ err }, 'closing the sign-in endpoint failed'));
      await web.stop().catch((err: unknown) => logger.warn({ err }, 'closing the web console failed'));
      if (ownsStore) await store.close();
    },
  };
  return app;
}
