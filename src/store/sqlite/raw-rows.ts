import type { ConversationRow, MessageRow, RunRow, TaskRow } from '../../db/schema.js';

/**
 * Rows of the hot tables read as plain arrays (better-sqlite3's `.raw()`) and turned into the
 * drizzle row types by position. The per-message path reads runs, tasks, conversations and the
 * transcript many times; drizzle's generic result mapping cost more than the queries themselves.
 * Each mapper does what drizzle's column modes do: JSON columns parsed (null stays null),
 * boolean columns from 0/1. The column lists and the mappers must change together with the schema:
 * the SQLite store's tests compare them with drizzle's own reads.
 */
type Raw = readonly unknown[];

const json = <T>(v: unknown): T | null => (v === null || v === undefined ? null : (JSON.parse(String(v)) as T));

/** The columns of `runs`, in the order `runFromRaw` reads them. */
export const RUN_COLUMNS =
  'id, conversation_id, task_id, status, steps, question, ask_expires_at, summary, error, tokens, started_at, updated_at, ended_at, principal, principal_roles';

export function runFromRaw(r: Raw): RunRow {
  return {
    id: r[0] as string,
    conversationId: r[1] as string,
    taskId: r[2] as number | null,
    status: r[3] as RunRow['status'],
    steps: r[4] as number,
    question: json<NonNullable<RunRow['question']>>(r[5]),
    askExpiresAt: r[6] as number | null,
    summary: r[7] as string | null,
    error: r[8] as string | null,
    tokens: r[9] as number,
    startedAt: r[10] as number,
    updatedAt: r[11] as number,
    endedAt: r[12] as number | null,
    principal: r[13] as string | null,
    principalRoles: json<string[]>(r[14]),
  };
}

/** The columns of `tasks`, in the order `taskFromRaw` reads them. */
export const TASK_COLUMNS =
  'id, conversation_id, title, description, status, sequence, blocked_by, blocked, result_summary, fail_reason, attempts, not_before, created_by, requested_by, source_message_id, schedule_id, images, created_at, updated_at, started_at, finished_at, requester_roles, from_schedule';

export function taskFromRaw(r: Raw): TaskRow {
  return {
    id: r[0] as number,
    conversationId: r[1] as string,
    title: r[2] as string,
    description: r[3] as string,
    status: r[4] as TaskRow['status'],
    sequence: r[5] as number,
    blockedBy: json<number[]>(r[6]) as number[],
    blocked: Number(r[7]) === 1,
    resultSummary: r[8] as string | null,
    failReason: r[9] as string | null,
    attempts: r[10] as number,
    notBefore: r[11] as number,
    createdBy: r[12] as TaskRow['createdBy'],
    requestedBy: r[13] as string | null,
    sourceMessageId: r[14] as string | null,
    scheduleId: r[15] as number | null,
    images: json<NonNullable<TaskRow['images']>>(r[16]),
    createdAt: r[17] as number,
    updatedAt: r[18] as number,
    startedAt: r[19] as number | null,
    finishedAt: r[20] as number | null,
    requesterRoles: json<string[]>(r[21]),
    fromSchedule: Number(r[22]) === 1,
  };
}

/** The columns of `conversations`, in the order `conversationFromRaw` reads them. */
export const CONVERSATION_COLUMNS = 'id, platform, workspace, channel, thread, timezone, created_at, updated_at';

export function conversationFromRaw(r: Raw): ConversationRow {
  return {
    id: r[0] as string,
    platform: r[1] as string,
    workspace: r[2] as string,
    channel: r[3] as string,
    thread: r[4] as string | null,
    timezone: r[5] as string | null,
    createdAt: r[6] as number,
    updatedAt: r[7] as number,
  };
}

/** The columns of `messages`, in the order `messageFromRaw` reads them. */
export const MESSAGE_COLUMNS =
  'id, conversation_id, run_id, role, content, tool_calls, tool_call_id, author_id, platform_message_id, images, created_at, private_to';

export function messageFromRaw(r: Raw): MessageRow {
  return {
    id: r[0] as number,
    conversationId: r[1] as string,
    runId: r[2] as string | null,
    role: r[3] as MessageRow['role'],
    content: r[4] as string | null,
    toolCalls: json<NonNullable<MessageRow['toolCalls']>>(r[5]),
    toolCallId: r[6] as string | null,
    authorId: r[7] as string | null,
    platformMessageId: r[8] as string | null,
    images: json<NonNullable<MessageRow['images']>>(r[9]),
    createdAt: r[10] as number,
    privateTo: r[11] as string | null,
  };
}
