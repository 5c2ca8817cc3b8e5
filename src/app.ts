import { presenceOver } from './chat/presence-over-adapters.js';
import { threadOpenerOver } from './outbox/thread-opener.js';
import { unrecordedNoticesOver } from './outbox/unrecorded-notice.js';
import { conversationKey } from './chat/conversation-ref.js';
import { systemClock } from './clock.js';
import type { CommandDeps } from './commands/command-deps.js';
import { SCHEDULES_HELP } from './schedules/commands/schedules-command.js';
import { createScheduleManagement } from './schedules/commands/schedule-management.js';
import { createScheduleRights } from './schedules/schedule-rights.js';
import { createWhenInterpreter } from './schedules/agent/when-interpreter.js';
import { createAccessPolicy } from './access/access-policy.js';
import { createAuthority } from './runs/authority.js';
import { silentLogger } from './logger.js';
import { createRunTracer } from './runtime/runs/run-tracing.js';
import { noopTracing } from './telemetry/tracing.js';
import { noopMetrics } from './metrics/metrics.js';
import { connectionsCommandDeps } from './sign-in/commands/connections-command-deps.js';
import { handleConnectionsCommand } from './sign-in/commands/connections-command.js';
import { connectionsOnHome } from './sign-in/commands/connections-home.js';
import type { OAuthRuntime } from './sign-in/mcp/oauth-setup.js';
import { carriedQuestions, createElicitationDesk } from './questions/runtime/elicitation-waits.js';
import { Dispatcher } from './runtime/dispatcher.js';
import { attachmentIntakeFor, filesOutOver } from './sandbox/runtime/sandbox-files.js';
import { Heartbeat } from './runtime/process/heartbeat.js';
import { createOutbox } from './outbox/outbox.js';
import { createLocalCluster } from './runtime/process/cluster-hooks.js';
import { RunCoordinator } from './runtime/runs/run-coordinator.js';
import { finishOpenWork } from './runtime/restarts/finish-open-work.js';
import { createScheduling } from './schedules/scheduling.js';
import { openStore } from './composition/open-store.js';
import { createWebConsole } from './web-console/web-console-wiring.js';
import { setUpSandbox } from './sandbox/agent/sandbox-wiring.js';

import type { App, AppOptions } from './app-contract.js';
import { createAppModel } from './app-model.js';
import { createAppAgent, runLimits } from './app-agent.js';
import { appLifecycle } from './app-lifecycle.js';

export type { App, AppOptions, ManagedToolSource } from './app-contract.js';

/** Attempts a task gets, counting transient failures and restarts that interrupted it. */
const MAX_TASK_ATTEMPTS = 3;

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
  const filesOut =
    options.filesOut ??
    filesOutOver({ outbox: () => outbox, filesOf: (p) => adapters.get(p)?.capabilities.files ?? null, logger });
  const sandbox = await setUpSandbox({
    settings: config.file.settings.sandbox,
    store: store.workspaces,
    clock,
    logger,
    filesOut,
    probe: options.sandboxProbe,
    privatePaths: [process.cwd(), config.DATABASE_PATH, config.file.path ?? ''],
  });
  const consoleSandbox = {
    state: () => ({ configured: true as const, healthy: sandbox.status === 'available', summary: sandbox.summary }),
  };
  const web = createWebConsole({
    config,
    store,
    access,
    clock,
    logger,
    ...(options.webConsole ? { options: { sandbox: consoleSandbox, ...options.webConsole } } : {}),
  });
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
  const { agent, skills } = await createAppAgent({
    config,
    options,
    store,
    access,
    rights,
    schedules: scheduling.service,
    adapters,
    sandbox,
    web,
    llm,
    tracing,
    runTracer,
    clock,
    logger,
  });
  const { usage } = store;
  const { limits, pricing } = config.file.settings;

  // The core never holds an adapter: content leaves through the outbox's doors, status through the presence port.
  const presence = presenceOver(adapters);
  const threads = threadOpenerOver(adapters);
  const notices = unrecordedNoticesOver(adapters);
  const userTimezone = async (platform: string, userId: string) =>
    (await adapters
      .get(platform)
      ?.capabilities.timezone?.fetchUserTimezone(userId)
      .catch(() => null)) ?? null;
  const coordinator = new RunCoordinator({
    data: {
      store,
      conversations,
      transcript,
      tasks,
      runs,
      grants: store.grants,
      posts: outbox,
      changes: outbox,
      approvals: web.approvals,
      carried: carriedQuestions,
    },
    platforms: { has: (platform) => adapters.has(platform), presence, userTimezone },
    agent,
    scheduleRunEnded: (id, result) => scheduling.service.recordRunResult(id, result),
    cluster,
    clock,
    logger,
    metrics,
    limits: runLimits(config, options.taskRetryDelayMs, MAX_TASK_ATTEMPTS),
  });
  const management = createScheduleManagement({
    service: scheduling.service,
    rights,
    interpretWhen: createWhenInterpreter(llm),
    userTimezone,
    defaultTimezone: config.DEFAULT_TIMEZONE,
    now: () => clock.now(),
    home: {
      openWork: store.openWork,
      runs,
      authority,
      parseConversation: (id) => conversations.refOf(id),
      memories: store.memory,
    },
  });
  /** Per-person OAuth (DESIGN.md "Signing in to MCP servers"): the sign-in endpoint on WEB_PORT, from start to stop. */
  const signIns: { current: OAuthRuntime | null } = { current: null };
  const connections = connectionsCommandDeps(config, () => signIns.current, options.externalTools);
  const commandDeps: CommandDeps = {
    authority,
    note: (conversationId, text) =>
      void outbox
        .record(conversationId, null, { purpose: 'note', text })
        .catch((err: unknown) => logger.error({ err, conversationId }, 'recording a note failed')),
    conversations,
    tasks,
    runs,
    coordinator,
    schedules: (cmd) => management.command(cmd),
    schedulesHelp: SCHEDULES_HELP,
    usage: {
      store: usage,
      cost: store.cost,
      limits,
      pricing,
      isAdmin: (p) => access.isAdmin(p),
      now: () => clock.now(),
    },
    connections,
    connectionsCommand: (cmd) => handleConnectionsCommand(cmd, connections),
    memory: { store: store.memory, isAdmin: (p) => access.isAdmin(p) },
    skills: skills.command,
  };
  web.attach(commandDeps, {
    coordinator,
    editor: management.editor,
    schedules: scheduling.service,
    adapters,
    ...(options.externalTools?.status ? { toolServers: () => options.externalTools?.status?.() ?? [] } : {}),
  });
  // The App Home: open work and schedules, and the person's MCP sign-ins with Disconnect.
  const surfaces = skills.onHome(connectionsOnHome(management.surfaces, connections));
  const attachments = attachmentIntakeFor({
    config,
    store,
    clock,
    logger,
    workspace: options.workspaceInputs ?? (sandbox.status === 'available' ? sandbox.inputs : undefined),
  });
  const dispatcher = new Dispatcher({
    data: { store, conversations, tasks, runs, dedupe, changes: outbox, claimWithMessage: true },
    coordinator,
    platforms: { has: (platform) => adapters.has(platform), threads, presence, notices },
    clock,
    logger,
    commands: commandDeps,
    rules: { access, authority, budget: agent.budget },
    attachments,
    scheduleManagement: { editor: management.editor },
  });
  const heartbeat = new Heartbeat({
    runs,
    coordinator,
    dedupe,
    clock,
    logger,
    maxConcurrentRuns: config.MAX_CONCURRENT_RUNS,
    periodMs: config.HEARTBEAT_SECONDS * 1000,
  });

  /** Whether a notice in this conversation reaches only its person (Slack ephemeral, the console), so a link may go there. */
  const privateIn = (conversationId: string) =>
    adapters.get(conversations.refOf(conversationId)?.platform ?? '')?.privateNotices === true;
  const elicitations = createElicitationDesk({
    posts: outbox,
    store: store.elicitations,
    runs,
    coordinator,
    cluster,
    clock,
    askTimeoutMs: config.ASK_TIMEOUT_MINUTES * 60_000,
    logger: logger.child({ part: 'elicitation' }),
    privateIn,
  });

  const lifecycle = appLifecycle({
    config,
    options,
    store,
    ownsStore,
    adapters,
    cluster,
    coordinator,
    dispatcher,
    heartbeat,
    outbox,
    scheduling,
    sandbox,
    web,
    elicitations,
    surfaces,
    presence,
    threads,
    access,
    rights,
    signIns,
    maxAttempts: MAX_TASK_ATTEMPTS,
    clock,
    logger,
    metrics,
  });
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
    start: lifecycle.start,
    catchUp: lifecycle.catchUp,
    finishOpenWork: (silenced) => finishOpenWork({ coordinator, runs, outbox }, silenced.map(conversationKey)),
    stop: lifecycle.stop,
  };
  return app;
}
