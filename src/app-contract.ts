import type { LlmClient } from './agent/llm-client.js';
import type { ExternalToolSource } from './agent/tools/external-tool.js';
import type { ChatAdapter } from './chat/chat-adapter.js';
import type { ConversationRef } from './chat/conversation-ref.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { ConversationStore } from './conversations/conversation-store.js';
import type { TranscriptStore } from './conversations/transcript-store.js';
import type { Logger } from './logger.js';
import type { OAuthBinding } from './sign-in/mcp/oauth-tool-server.js';
import type { ElicitationAsker } from './mcp/elicitation-scope.js';
import type { ToolServerState } from './metrics/health-check.js';
import type { Monitoring } from './metrics/monitoring.js';
import type { Outbox } from './outbox/outbox.js';
import type { RunStore } from './runs/run-store.js';
import type { Cluster } from './runtime/process/cluster-hooks.js';
import type { Dispatcher } from './runtime/dispatcher.js';
import type { FinishedWork } from './runtime/restarts/finish-open-work.js';
import type { Heartbeat } from './runtime/process/heartbeat.js';
import type { RunCoordinator } from './runtime/runs/run-coordinator.js';
import type { ScheduleService } from './schedules/schedule-service.js';
import type { WakeTimer } from './schedules/scheduler.js';
import type { ErrandStore } from './composition/errand-store.js';
import type { TaskService } from './tasks/task-service.js';
import type { Tracing } from './telemetry/tracing.js';
import type { WebConsole, WebConsoleOptions } from './web-console/web-console-wiring.js';
import type { SandboxAvailability } from './sandbox/sandbox-probe.js';
import type { FilesOut, WorkspaceInputs } from './attachments/workspace-ports.js';

/*
 * What createApp (app.ts) takes and gives: the one place main.ts, the tests and the benchmarks read to
 * compose Errand, kept apart from the wiring itself.
 */

export interface AppOptions {
  config: Config;
  adapters: readonly ChatAdapter[];
  logger?: Logger;
  clock?: Clock;
  /** An open store; when omitted, the configured database is opened (and closed on stop). */
  store?: ErrandStore;
  /** The model; when omitted, the OpenAI-compatible endpoint from the config. */
  llm?: LlmClient;
  /** Backoff between model retries (tests shorten it). */
  modelBackoffMs?: (attempt: number) => number;
  /** Delay before a task whose run failed transiently is retried. */
  taskRetryDelayMs?: (attempts: number) => number;
  /** Wait before an outbox post that failed transiently is tried again (tests shorten it). */
  outboxBackoffMs?: (attempts: number) => number;
  /** Replaces the scheduler's wake timer (default: node-schedule on the system clock, else the clock's timers). */
  scheduleTimer?: WakeTimer;
  /** Tools from outside Errand (MCP servers); started with the app and closed with it. */
  externalTools?: ManagedToolSource;
  /** `/healthz` and `/metrics` (METRICS_PORT): counts what happens, served from start to stop. Absent: nothing is counted. */
  monitoring?: Monitoring;
  /** Traces (OTEL_EXPORTER_OTLP_ENDPOINT: telemetry/load-tracing.ts): runs, model requests, tool calls and deliveries as spans. Absent: none. */
  tracing?: Tracing;
  /** The other processes on the same database (PostgreSQL: cluster/cluster-runtime.ts); default: this process is alone. */
  cluster?: Cluster;
  /** The conversations' workspaces (the sandbox available and enabled): people's files are also copied into `/workspace/in/`. */
  workspaceInputs?: WorkspaceInputs;
  /** Serve the web console on WEB_PORT (DESIGN.md "The web console"); absent: `/admin` says it is not served here. main.ts always asks. */
  webConsole?: WebConsoleOptions;
  /** Where files `run_code` writes to `/workspace/out/` are posted (the platforms' half); absent: reported as not posted. */
  filesOut?: FilesOut;
  /** Whether a sandbox starts here (tests replace it); default: a real bubblewrap probe, once per process. */
  sandboxProbe?: () => Promise<SandboxAvailability>;
}

/** An external tool source with a life cycle (the MCP hub): started before adapters connect, closed last. */
export interface ManagedToolSource extends ExternalToolSource {
  start?(): Promise<void>;
  close?(): Promise<void>;
  /** Each server's state, shown by `/healthz`. */
  status?(): readonly ToolServerState[];
  /** Hands `auth: "oauth"` servers the running sign-in service (when some server uses it), before `start`. */
  bindOAuth?(binding: OAuthBinding): void;
  /** A person disconnected a server: their session to it is closed. */
  disconnected?(principal: string, server: string): Promise<void>;
  /** Hands the servers whoever asks people their questions (elicitation) during calls, before `start`. */
  bindElicitation?(asker: ElicitationAsker): void;
  /**
   * A person connected a server (the sign-in callback, on this process): their session opens, and lists the server's
   * tools when this process knows none yet, so the call that waited for the sign-in finds its tool.
   */
  connected?(principal: string, server: string): Promise<void>;
}

/** The running system, for main.ts, tests and benchmarks. */
export interface App {
  readonly store: ErrandStore;
  readonly dispatcher: Dispatcher;
  readonly coordinator: RunCoordinator;
  readonly heartbeat: Heartbeat;
  readonly conversations: ConversationStore;
  readonly transcript: TranscriptStore;
  readonly tasks: TaskService;
  readonly runs: RunStore;
  readonly schedules: ScheduleService;
  readonly outbox: Outbox;
  /** Posts a run's output files to its conversation through the outbox (what run_code calls when a call ends). */
  readonly filesOut: FilesOut;
  /** The web console and the audit log (its server listens between start and stop, when asked for). */
  readonly webConsole: Pick<WebConsole, 'localUrl'>;
  /** Where attachments land in a conversation's sandbox workspace (`/workspace/in/`). */
  readonly workspaces: WorkspaceInputs;
  /** Connects adapters, recovers interrupted runs, starts the heartbeat and queued work. */
  start(): Promise<void>;
  /** Stops timers and runs, disconnects adapters, closes the database if this app opened it. */
  stop(): Promise<void>;
  /**
   * Reads what people wrote, in conversations with open work, while this process heard nothing from the
   * platforms, and hands it to the dispatcher (as start does). For a process that took a gateway over from
   * one that died: the dead one's session cannot be resumed, so its last moments are read back.
   */
  catchUp(): Promise<void>;
  /**
   * Lets the open work end before a stop nobody asked to interrupt it (the console's piped input
   * ended): runs executing and tasks ready now run to their end and their posts are delivered; a run
   * of `silenced` (where nobody can write any more) that asks a question is stopped. See finish-open-work.ts.
   */
  finishOpenWork(silenced: readonly ConversationRef[]): Promise<FinishedWork>;
}
