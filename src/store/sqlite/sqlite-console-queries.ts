import { and, desc, eq, inArray } from 'drizzle-orm';
import type { ConsoleQueries } from '../../admin/console-queries.js';
import type { Db } from '../../db/client.js';
import { mcpConnections, memories, messages, runTraces, schedules } from '../../db/schema.js';
import {
  channelUsageRows,
  consoleRunRows,
  countsRow,
  fingerprintOf,
  fingerprintRows,
  todoRows,
  usageRows,
} from '../console-query-rows.js';
import type { Synchronous } from './synchronous.js';

const RUN_SELECT = `select r.id, r.conversation_id as conversationId, r.task_id as taskId, t.title as title, r.status, r.steps, r.tokens,
  coalesce(c.cost_usd, 0) as usd, r.principal, null as owner, null as leaseUntil, r.started_at as startedAt, r.updated_at as updatedAt,
  r.ended_at as endedAt, r.error, r.summary, json_extract(r.question, '$.question') as waitingOn
  from runs r left join tasks t on t.id = r.task_id left join run_costs c on c.run_id = r.id`;

/**
 * The web console's reads on SQLite. Active runs are found through the partial index of active runs (the literal
 * statuses match its condition), recent ones through `runs_started_idx`, counts through the smallest index each.
 */
export function createSqliteConsoleQueries(db: Db): Synchronous<ConsoleQueries> {
  const s = db.$client;
  const counts = s.prepare(`select
      (select count(*) from conversations) as conversations,
      (select count(*) from runs where status in ('running', 'waiting_user') and status = 'running') as runsRunning,
      (select count(*) from runs where status in ('running', 'waiting_user') and status = 'waiting_user') as runsWaiting,
      (select count(*) from tasks where status in ('pending', 'in_progress') and status = 'pending') as tasksPending,
      (select count(*) from schedules where status = 'active') as schedulesActive,
      (select count(*) from schedules where status = 'paused') as schedulesPaused`);
  const active = s.prepare(
    `${RUN_SELECT} where r.status in ('running', 'waiting_user') order by r.started_at desc limit ?`,
  );
  const recent = s.prepare(`${RUN_SELECT} where r.started_at < ? order by r.started_at desc limit ?`);
  const one = s.prepare(`${RUN_SELECT} where r.id = ?`);
  const activeFingerprint = s.prepare(
    `select id, status, steps, updated_at as updatedAt from runs where status in ('running', 'waiting_user') order by id`,
  );
  const lastStart = s.prepare('select max(started_at) as at from runs').pluck();
  const runRow = s.prepare('select id, status, steps, updated_at as updatedAt from runs where id = ?');
  const lastMessage = s.prepare('select max(id) from messages where conversation_id = ?').pluck();
  const countSchedules = s.prepare('select count(*) from schedules').pluck();
  const todos =
    s.prepare(`select conversation_id as conversationId, sum(status in ('pending', 'in_progress')) as open, count(*) as total, max(updated_at) as latest
      from tasks group by conversation_id order by open > 0 desc, latest desc limit ?`);
  const usage =
    s.prepare(`select day, user, model, sum(prompt_tokens + completion_tokens) as tokens, sum(cost_usd) as usd
      from usage_model_daily where day >= ? group by day, user, model order by day, user, model`);
  // A conversation key is platform:workspace:channel:thread; the channel is all but the last part.
  const channelUsage = s.prepare(`select strftime('%Y-%m-%d', r.started_at / 1000, 'unixepoch') as day,
      substr(r.conversation_id, 1, length(r.conversation_id) - length(coalesce(cv.thread, '-')) - 1) as channel,
      sum(r.tokens) as tokens, sum(coalesce(c.cost_usd, 0)) as usd
      from runs r join conversations cv on cv.id = r.conversation_id left join run_costs c on c.run_id = r.id
      where r.started_at >= ? group by day, channel order by day, channel`);
  return {
    counts: () => countsRow.parse(counts.get()),
    activeRuns: (limit) => consoleRunRows.parse(active.all(limit)),
    recentRuns: (before, limit) => consoleRunRows.parse(recent.all(before ?? Number.MAX_SAFE_INTEGER, limit)),
    run: (id) => consoleRunRows.parse(one.all(id))[0] ?? null,
    runMessages: (conversationId, runId) =>
      db
        .select()
        .from(messages)
        .where(and(eq(messages.conversationId, conversationId), eq(messages.runId, runId)))
        .orderBy(messages.id)
        .all(),
    // A run that starts or ends, or any step of an active one, changes it (an ended run leaves the active set).
    runsFingerprint: () => fingerprintOf(fingerprintRows.parse(activeFingerprint.all()), Number(lastStart.get() ?? 0)),
    runFingerprint: (conversationId, runId) =>
      `${fingerprintOf(fingerprintRows.parse(runRow.all(runId)), null)}|${Number(lastMessage.get(conversationId) ?? 0)}`,
    schedules: (limit, offset) => db.select().from(schedules).orderBy(schedules.id).limit(limit).offset(offset).all(),
    countSchedules: () => Number(countSchedules.get()),
    todoConversations: (limit) => todoRows.parse(todos.all(limit)),
    usage: (fromDay) => usageRows.parse(usage.all(fromDay)),
    channelUsage: (fromMs) => channelUsageRows.parse(channelUsage.all(fromMs)),
    connections: (limit) =>
      db
        .select({
          principal: mcpConnections.principal,
          server: mcpConnections.server,
          account: mcpConnections.account,
          scopes: mcpConnections.scopes,
          connectedAt: mcpConnections.connectedAt,
          expiresAt: mcpConnections.expiresAt,
        })
        .from(mcpConnections)
        .orderBy(mcpConnections.principal, mcpConnections.server)
        .limit(limit)
        .all(),
    sharedMemories: (limit) =>
      db
        .select()
        .from(memories)
        .where(inArray(memories.scope, ['channel', 'workspace']))
        .orderBy(desc(memories.id))
        .limit(limit)
        .all(),
    traceOf: (runId) =>
      db.select({ t: runTraces.traceparent }).from(runTraces).where(eq(runTraces.runId, runId)).get()?.t ?? null,
  };
}
