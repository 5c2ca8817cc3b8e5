import type { McpConnectionRow, MemoryRow, MessageRow, RunStatus, ScheduleRow, TaskRow } from '../db/schema.js';

/** The numbers the Overview leads with, each read from an index. */
export interface ConsoleCounts {
  readonly conversations: number;
  readonly runsRunning: number;
  readonly runsWaiting: number;
  /** To-dos waiting to start (blocked or not): the queue depth. */
  readonly tasksPending: number;
  readonly schedulesActive: number;
  readonly schedulesPaused: number;
}

/** A run as the console lists it: the run, its task's title, its cost, and (PostgreSQL) which process holds it until when. */
export interface ConsoleRun {
  readonly id: string;
  readonly conversationId: string;
  readonly taskId: number | null;
  readonly title: string | null;
  readonly status: RunStatus;
  readonly steps: number;
  readonly tokens: number;
  readonly usd: number;
  /** The platform user id it acts for. */
  readonly principal: string | null;
  readonly owner: string | null;
  readonly leaseUntil: number | null;
  readonly startedAt: number;
  readonly updatedAt: number;
  readonly endedAt: number | null;
  readonly error: string | null;
  readonly summary: string | null;
  /** What it waits on, when waiting (the question's text). */
  readonly waitingOn: string | null;
}

/** Tokens and dollars of one person on one day with one model. */
export interface UsageCell {
  readonly day: string;
  readonly user: string;
  readonly model: string;
  readonly tokens: number;
  readonly usd: number;
}

/** Tokens and dollars of the runs started in one channel (`platform:workspace:channel`) on one day. */
export interface ChannelUsageCell {
  readonly day: string;
  readonly channel: string;
  readonly tokens: number;
  readonly usd: number;
}

/** A person's sign-in to a server, without anything secret (the sealed tokens are never read here). */
export type ConnectionListing = Pick<
  McpConnectionRow,
  'principal' | 'server' | 'account' | 'scopes' | 'connectedAt' | 'expiresAt'
>;

/** A conversation with to-dos, and how many of them are open. */
export interface TodoConversation {
  readonly conversationId: string;
  readonly open: number;
  readonly total: number;
  readonly latest: number;
}

export type { MessageRow, MemoryRow, ScheduleRow, TaskRow };

/**
 * What the web console reads across the whole database (every process's runs on PostgreSQL), beyond what the
 * domain stores answer for one conversation or person. Read-only; each query is bounded by `limit` and an index.
 */
export interface ConsoleQueries {
  counts(): Promise<ConsoleCounts>;
  /** Runs running or waiting now, newest first. */
  activeRuns(limit: number): Promise<ConsoleRun[]>;
  /** Runs of any status started before `before` (null: now), newest first. */
  recentRuns(before: number | null, limit: number): Promise<ConsoleRun[]>;
  run(id: string): Promise<ConsoleRun | null>;
  /** The transcript rows a run wrote (and the request that started it), in order. */
  runMessages(conversationId: string, runId: string): Promise<MessageRow[]>;
  /**
   * A short text that changes whenever an active run changes (a step, a question, an answer, an end) or one ends:
   * what the live pages poll, cheaply, to know whether to send an update.
   */
  runsFingerprint(): Promise<string>;
  /** A run's own fingerprint: its row and the newest transcript row of its conversation. */
  runFingerprint(conversationId: string, runId: string): Promise<string>;
  schedules(limit: number, offset: number): Promise<ScheduleRow[]>;
  countSchedules(): Promise<number>;
  /** Conversations with to-dos, those with open ones first, then the most recent. */
  todoConversations(limit: number): Promise<TodoConversation[]>;
  /** Usage per day, person and model from `fromDay` (`YYYY-MM-DD`) on. */
  usage(fromDay: string): Promise<UsageCell[]>;
  /** Usage per day and channel of the runs started since `fromMs`. */
  channelUsage(fromMs: number): Promise<ChannelUsageCell[]>;
  connections(limit: number): Promise<ConnectionListing[]>;
  /** Channel- and workspace-scoped memories (never a person's own), newest first. */
  sharedMemories(limit: number): Promise<MemoryRow[]>;
  /** The trace a run started in (W3C traceparent), when tracing was on. */
  traceOf(runId: string): Promise<string | null>;
}
