import type { RunPosts } from '../../agent/agent-types.js';
import type { LlmClient } from '../../agent/llm-client.js';
import type { RunMemory } from '../../agent/context-assembly.js';
import type { ToolRegistry } from '../../agent/tools/tool-registry.js';
import type { RunSkillsSource } from '../../agent/run-skills.js';
import type { Budget } from '../../budget/budget.js';
import type { Presence } from '../../chat/presence.js';
import type { Clock } from '../../clock.js';
import type { ConversationStore } from '../../conversations/conversation-store.js';
import type { ToolGrantStore } from '../../conversations/tool-grant-store.js';
import type { TranscriptStore } from '../../conversations/transcript-store.js';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../metrics/metrics.js';
import type { OutboxChanges } from '../../outbox/outbox.js';
import type { RunStore } from '../../run-records/run-store.js';
import type { ScheduleRunResult } from '../../run-records/run-store.js';
import type { RunTracer } from './run-tracing.js';
import type { ChannelSettings } from '../../settings/team-settings.js';
import type { Store } from '../../store/store.js';
import type { TaskService } from '../../tasks/task-service.js';
import type { ClusterMembership } from './cluster-membership.js';
import type { ApprovalAudit } from '../../audit/approval-audit.js';
import type { CarriedQuestions } from './carried-questions.js';

export interface RunLimits {
  maxConcurrentRuns: number;
  maxSteps: number;
  maxRunMs: number;
  contextBudget: number;
  askTimeoutMs: number;
  defaultTimezone: string;
  /** Attempts a task gets when failures are transient. */
  maxAttempts: number;
  /** Delay before retry after `attempts` transient failures. */
  retryDelayMs(attempts: number): number;
}

/** Where runs, their tasks, transcripts, grants and posts are kept: grouped because every part of a run's life reads some of them. */
export interface RunData {
  /** Claims, resumes and settlements are transactions of this store. */
  store: Pick<Store, 'atomically' | 'claims'>;
  conversations: ConversationStore;
  transcript: TranscriptStore;
  tasks: TaskService;
  runs: RunStore;
  grants: ToolGrantStore;
  /** Where runs post: recorded with the step that produced the post, delivered by the outbox. */
  posts: RunPosts;
  /** Edits of posted messages (an approval's decision), delivered by the outbox in order with the posts. */
  changes: Pick<OutboxChanges, 'recordEdit' | 'piecesOf'>;
  /** Where each approval decision is recorded with who made it (the audit log); absent: nowhere. */
  approvals?: ApprovalAudit;
  /** MCP servers' questions a run waits on across a restart (src/questions/): closed when the run is resumed. */
  carried: CarriedQuestions;
}

/**
 * What runs need of the platforms besides posting: status through the presence port, and a person's
 * timezone. Never the adapters themselves: everything a run writes on a platform leaves through the
 * outbox (`RunData.posts`, `RunData.changes`) or the presence port.
 */
export interface RunPlatforms {
  /** Whether the platform is connected: a run of a conversation elsewhere fails at its launch. */
  has(platform: string): boolean;
  presence: Presence;
  /** The person's IANA timezone where the platform knows it; null when it does not (or the lookup failed). */
  userTimezone(platform: string, userId: string): Promise<string | null>;
}

/** What a run thinks with: the model, its tools and what shapes its prompt and spending. Only the launch reads these. */
export interface AgentSetup {
  llm: LlmClient;
  tools: ToolRegistry;
  /** Paragraphs added to every system prompt (e.g. scheduling help). */
  promptExtras?: readonly string[];
  /** Token budgets: every run records its usage here and stops when one runs out. Absent: nothing is counted. */
  budget?: Budget;
  /** Per-channel prompt and model (the `channels` key of the configuration file). */
  channels?: ChannelSettings;
  /** STREAMING: false keeps runs out of live streams, their steps too (no task cards); absent: true. */
  streaming?: boolean;
  /** Conversation summaries and long-term memories (DESIGN.md "Memory"); absent: older messages are only dropped. */
  memory?: RunMemory;
  /** Each execution in an `invoke_agent errand` span (traces on); absent: runs are not traced. */
  runTracer?: RunTracer;
  /** The skills enabled in each run's channel (DESIGN.md "Skills"): listed in its prompt, opened with use_skill; absent: none. */
  skills?: RunSkillsSource;
}

/** What the run coordinator is built from; it hands each part of a run's life only the fields that part uses. */
export interface CoordinatorDeps {
  data: RunData;
  platforms: RunPlatforms;
  agent: AgentSetup;
  clock: Clock;
  logger: Logger;
  limits: RunLimits;
  /** A scheduled run ended in a way its schedule records (a success, or a target that is gone). */
  scheduleRunEnded?(scheduleId: number, result: ScheduleRunResult): Promise<void>;
  /** Where run outcomes are counted (default: nowhere). */
  metrics?: Metrics;
  /** The other processes on the same database (leases, wake-ups, stops); absent: this process is alone. */
  cluster?: ClusterMembership;
}
