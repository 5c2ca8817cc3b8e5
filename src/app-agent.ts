import { createSummaryWriter } from './agent/context-summary.js';
import type { LlmClient } from './agent/llm-client.js';
import { createControlTools } from './agent/tools/control-tools.js';
import { createHistoryTools } from './agent/tools/history-tools.js';
import { createMemoryTools } from './memory/agent/memory-tools.js';
import { runMemory } from './memory/agent/run-memory.js';
import { createScheduleTools, SCHEDULES_PROMPT } from './schedules/agent/schedule-tools.js';
import { createTaskTools } from './agent/tools/task-tools.js';
import type { ToolDefinition } from './agent/tools/tool.js';
import { createToolRegistry } from './agent/tools/tool-registry.js';
import { traceTools } from './agent/tools/traced-tools.js';
import type { AccessPolicy } from './access/access-policy.js';
import type { ScheduleRights } from './schedules/schedule-rights.js';
import type { AppOptions } from './app-contract.js';
import { createBudget } from './budget/budget.js';
import { unpricedWarning } from './budget/pricing.js';
import type { PlatformReads } from './chat/platform-reads.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import type { AgentSetup, RunLimits } from './runs/runtime/run-deps.js';
import type { RunTracer } from './runs/runtime/run-tracing.js';
import { setUpSkills, type SkillsSetup } from './runtime/skills-setup.js';
import type { SandboxParts } from './sandbox/agent/sandbox-wiring.js';
import type { ScheduleService } from './schedules/schedule-service.js';
import type { ErrandStore } from './composition/errand-store.js';
import type { Tracing } from './telemetry/tracing.js';
import type { WebConsole } from './web-console/web-console-wiring.js';

/** What a run thinks with, and the skills behind it (their command and App Home section use them too). */
export interface AppAgent {
  readonly agent: AgentSetup;
  readonly skills: SkillsSetup;
}

/**
 * The agent every run gets: Errand's own tools (control, to-dos, schedules, history, memory, the sandbox's,
 * the skills'), the MCP servers' beside them, each call traced and audited; the token and dollar budget; the
 * memory and its summaries; the skills of each run's channel.
 */
export async function createAppAgent(deps: {
  config: Config;
  options: Pick<AppOptions, 'externalTools' | 'cluster'>;
  store: ErrandStore;
  access: AccessPolicy;
  rights: ScheduleRights;
  schedules: ScheduleService;
  adapters: ReadonlyMap<string, PlatformReads>;
  sandbox: SandboxParts;
  web: Pick<WebConsole, 'tools'>;
  llm: LlmClient;
  tracing: Tracing;
  runTracer: RunTracer;
  clock: Clock;
  logger: Logger;
}): Promise<AppAgent> {
  const { config, options, store, access, sandbox, clock, logger, runTracer } = deps;
  const tools: ToolDefinition[] = [
    ...createControlTools(),
    ...createTaskTools(store.tasks, access),
    ...createScheduleTools(deps.schedules, deps.rights),
    ...createHistoryTools((p) => deps.adapters.get(p)),
    ...createMemoryTools(store.memory, (p) => access.isAdmin(p)),
    ...sandbox.tools,
  ];
  const sandboxAvailable = () => sandbox.status === 'available';
  const skills = await setUpSkills({ config, pins: store.skills, access, clock, logger, sandboxAvailable });
  tools.push(...skills.tools);
  const own = new Set(tools.map((t) => t.name));
  const registry = createToolRegistry(tools, options.externalTools);
  const { limits, pricing, channels } = config.file.settings;
  const models = [config.OPENAI_MODEL, ...Object.values(channels).flatMap((c) => (c.model ? [c.model] : []))];
  const unpriced = unpricedWarning(pricing, limits, models);
  if (unpriced) logger.warn(unpriced);
  // Processes sharing the database charge the same usage: each check reads it there, not from this process's memory.
  const shared = options.cluster !== undefined || config.DATABASE_URL !== undefined;
  const now = () => clock.now();
  return {
    skills,
    agent: {
      llm: deps.llm,
      tools: deps.web.tools(traceTools(registry, deps.tracing, own, (id) => runTracer.parentOf(id))),
      promptExtras: [SCHEDULES_PROMPT],
      budget: createBudget({ store: store.usage, cost: store.cost, limits, pricing, now, shared }),
      channels,
      streaming: config.STREAMING,
      memory: runMemory(
        store.memory,
        config.MEMORY_TOKEN_BUDGET,
        createSummaryWriter(deps.llm, config.COMPACTION_MODEL),
      ),
      runTracer,
      skills: skills.runs,
    },
  };
}

/**
 * How far a run may go (steps, time, context, questions' wait) and how often a to-do is tried: from the
 * environment, and a retry delay that doubles from 30 s unless a test gives its own.
 */
export function runLimits(
  config: Config,
  retryDelayMs: ((attempts: number) => number) | undefined,
  maxAttempts: number,
): RunLimits {
  return {
    maxConcurrentRuns: config.MAX_CONCURRENT_RUNS,
    maxSteps: config.MAX_STEPS,
    maxRunMs: config.MAX_RUN_MINUTES * 60_000,
    contextBudget: config.CONTEXT_TOKEN_BUDGET,
    askTimeoutMs: config.ASK_TIMEOUT_MINUTES * 60_000,
    defaultTimezone: config.DEFAULT_TIMEZONE,
    maxAttempts,
    retryDelayMs: retryDelayMs ?? ((attempts) => 30_000 * 2 ** (attempts - 1)),
  };
}
