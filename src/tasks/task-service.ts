import type { TaskRow } from '../db/schema.js';

/** A to-do item as the rest of Errand sees it. */
export type Task = TaskRow;

export type TaskResult = { ok: true; task: TaskRow } | { ok: false; error: string };

export interface NewTask {
  conversationId: string;
  title: string;
  description: string;
  createdBy: TaskRow['createdBy'];
  /** The task's principal (see TaskRow.requestedBy): every new task should have one. */
  requestedBy?: string | null;
  /** The principal's Discord role ids as of the request. */
  requesterRoles?: readonly string[] | null;
  /** It descends from a scheduled prompt: its run may not create schedules. */
  fromSchedule?: boolean;
  sourceMessageId?: string | null;
  scheduleId?: number | null;
  blockedBy?: number[];
}

export interface TaskEdit {
  title?: string;
  description?: string;
  addBlockedBy?: number[];
}

/**
 * The per-conversation to-do queue. Serial by construction: `claimNext` only hands out a task
 * when none of the conversation is in progress. `blocked` is recomputed whenever a blocker
 * changes, so "ready" stays an index lookup for the heartbeat.
 */
export interface TaskService {
  add(task: NewTask): Promise<TaskResult>;
  get(id: number): Promise<TaskRow | null>;
  /** Tasks of a conversation in queue order. */
  list(conversationId: string): Promise<TaskRow[]>;
  update(conversationId: string, id: number, edit: TaskEdit): Promise<TaskResult>;
  complete(conversationId: string, id: number, summary: string): Promise<TaskResult>;
  fail(conversationId: string, id: number, reason: string): Promise<TaskResult>;
  cancel(conversationId: string, id: number): Promise<TaskResult>;
  delete(conversationId: string, id: number): Promise<TaskResult>;
  /** Cancels every pending task of the conversation; returns how many. */
  cancelPending(conversationId: string): Promise<number>;
  /** Marks the next ready task in_progress (attempts + 1) and returns it, or null. */
  claimNext(conversationId: string): Promise<TaskRow | null>;
  /** Puts an in-progress task back to pending, startable from `notBefore`. */
  requeue(id: number, notBefore: number, failReason?: string | null): Promise<void>;
  /**
   * Conversations with a ready task (pending, unblocked, due, no active run), up to `limit`, skipping `exclude`.
   * `prefer` (a conversation whose run just ended) comes first when it is ready, wherever the cut at `limit`
   * falls, and is absent when it is not: asked here, so nobody opens a claim transaction to find out.
   */
  findReadyConversations(limit: number, exclude: ReadonlySet<string>, prefer?: string): Promise<string[]>;
  /**
   * Optional (PostgreSQL): what the coordinator's pump asks, in one statement: whether a waiting run is due to
   * resume (`RunStore.expiredQuestions` then reads them) and `findReadyConversations(limit, exclude, prefer)`.
   */
  dueWork?(limit: number, exclude: ReadonlySet<string>, prefer?: string): Promise<DueWork>;
}

/** What is due, as the pump asks it: waiting runs to resume (whether any), and the ready conversations. */
export interface DueWork {
  /** A waiting run's question expired, or an answer is recorded for it. */
  readonly questionsDue: boolean;
  /** As findReadyConversations answers. */
  readonly ready: string[];
}
