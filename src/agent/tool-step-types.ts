import type { ToolGrantStore } from '../conversations/tool-grant-store.js';
import type { TranscriptStore } from '../conversations/transcript-store.js';
import type { StoredToolCall } from '../records/stored-values.js';
import type { RunStore } from '../runs/run-store.js';
import type { PostTicket, RunPosts } from './agent-types.js';
import type { ActivityReport } from '../runs/run-activity.js';
import type { RunPrivacy } from './run-privacy.js';
import type { ToolRegistry } from './tools/tool-registry.js';
import type { ToolContext } from './tools/tool.js';

/** What a model step's tool calls are executed with (tool-step.ts): the tools, the stores they record in, the posts. */
export interface ToolStepDeps {
  tools: ToolRegistry;
  transcript: TranscriptStore;
  runs: RunStore;
  grants: ToolGrantStore;
  askTimeoutMs: number;
  posts: RunPosts;
  now(): number;
  /** Told what the run does next (model call, tool, question), for the platform's status line; absent: nobody listens. */
  activity?: ActivityReport;
  /** True once the process is shutting down (or lost the run to another): a call the abort cut short is left without a result. */
  shuttingDown?: () => boolean;
  /**
   * Rejects (RunFencedError) when another process took the run over: asked before each tool call, so a process
   * that stalled past its lease does not add a to-do, remember, schedule or write through an MCP server for a
   * run that is no longer its own. Absent: the run cannot be taken over.
   */
  confirmHeld?: () => Promise<void>;
}

/**
 * Waits for a run's recorded post to be delivered: the platform id, or null when it failed (logged)
 * or the run stopped waiting; throws TargetGoneError when the place is gone for good.
 */
export type AwaitPost = (ticket: PostTicket) => Promise<string | null>;

export interface ToolStepInput {
  runId: string;
  calls: readonly StoredToolCall[];
  context: ToolContext;
  signal: AbortSignal;
  awaitPost: AwaitPost;
  /** The call a person just allowed: it runs without asking again. */
  approvedCallId?: string;
  /** A task_complete summary from earlier in the same step (a step resumed after an approval). */
  completeSummary?: string | null;
  /** Who decides approvals: the requester (or, for a scheduled run, whoever created the schedule). */
  approverId: string | null;
  /** Whether the run holds private material (rows it writes are then private, its updates held); absent: it holds none. */
  privacy?: RunPrivacy;
}
