import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { ConsoleQueries } from '../../admin/console-queries.js';
import { mcpConnections, memories, messages, runTraces, schedules } from '../../db/pg-schema.js';
import {
  channelUsageRows,
  consoleRunRows,
  countsRow,
  fingerprintOf,
  fingerprintRows,
  todoRows,
  usageRows,
} from '../console-query-rows.js';
import type { PgExecutor } from './pg-executor.js';

const RUN_SELECT =
  sql.raw(`select r.id, r.conversation_id as "conversationId", r.task_id as "taskId", t.title as title, r.status, r.steps, r.tokens,
  coalesce(c.cost_usd, 0) as usd, r.principal, r.owner, r.lease_until as "leaseUntil", r.started_at as "startedAt", r.updated_at as "updatedAt",
  r.ended_at as "endedAt", r.error, r.summary, r.question->>'question' as "waitingOn"
  from runs r left join tasks t on t.id = r.task_id left join run_costs c on c.run_id = r.id`);

/** The web console's reads on PostgreSQL: every process's runs, with their owners and leases. */
export function createPgConsoleQueries(db: PgExecutor): ConsoleQueries {
  const runs = async (where: ReturnType<typeof sql>) =>
    consoleRunRows.parse((await db.execute(sql`${RUN_SELECT} ${where}`)).rows);
  return {
    async counts() {
      const result = await db.execute(sql`select
        (select count(*) from conversations) as conversations,
        (select count(*) from runs where status in ('running', 'waiting_user') and status = 'running') as "runsRunning",
        (select count(*) from runs where status in ('running', 'waiting_user') and status = 'waiting_user') as "runsWaiting",
        (select count(*) from tasks where status in ('pending', 'in_progress') and status = 'pending') as "tasksPending",
        (select count(*) from schedules where status = 'active') as "schedulesActive",
        (select count(*) from schedules where status = 'paused') as "schedulesPaused"`);
      return countsRow.parse(result.rows[0]);
    },
    activeRuns: (limit) =>
      runs(sql`where r.status in ('running', 'waiting_user') order by r.started_at desc limit ${limit}`),
    recentRuns: (before, limit) =>
      runs(sql`where r.started_at < ${before ?? Number.MAX_SAFE_INTEGER} order by r.started_at desc limit ${limit}`),
    run: async (id) => (await runs(sql`where r.id = ${id}`))[0] ?? null,
    runMessages: (conversationId, runId) =>
      db
        .select()
        .from(messages)
        .where(and(eq(messages.conversationId, conversationId), eq(messages.runId, runId)))
        .orderBy(messages.id),
    async runsFingerprint() {
      const active = await db.execute(
        sql`select id, status, steps, updated_at as "updatedAt" from runs where status in ('running', 'waiting_user') order by id`,
      );
      const last = await db.execute(sql`select max(started_at) as at from runs`);
      return fingerprintOf(
        fingerprintRows.parse(active.rows),
        Number((last.rows[0] as { at?: unknown } | undefined)?.at ?? 0),
      );
    },
    async runFingerprint(conversationId, runId) {
      const run = await db.execute(
        sql`select id, status, steps, updated_at as "updatedAt" from runs where id = ${runId}`,
      );
      const last = await db.execute(sql`select max(id) as id from messages where conversation_id = ${conversationId}`);
      return `${fingerprintOf(fingerprintRows.parse(run.rows), null)}|${Number((last.rows[0] as { id?: unknown } | undefined)?.id ?? 0)}`;
    },
    schedules: (limit, offset) => db.select().from(schedules).orderBy(schedules.id).limit(limit).offset(offset),
    async countSchedules() {
      const [row] = await db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(schedules);
      return row?.n ?? 0;
    },
    async todoConversations(limit) {
      const result =
        await db.execute(sql`select conversation_id as "conversationId", count(*) filter (where status in ('pending', 'in_progress')) as open,
        count(*) as total, max(updated_at) as latest from tasks group by conversation_id
        order by count(*) filter (where status in ('pending', 'in_progress')) > 0 desc, max(updated_at) desc limit ${limit}`);
      return todoRows.parse(result.rows);
    },
    async usage(fromDay) {
      const result =
        await db.execute(sql`select day, "user", model, sum(prompt_tokens + completion_tokens) as tokens, sum(cost_usd) as usd
        from usage_model_daily where day >= ${fromDay} group by day, "user", model order by day, "user", model`);
      return usageRows.parse(result.rows);
    },
    async channelUsage(fromMs) {
      const result =
        await db.execute(sql`select to_char(to_timestamp(r.started_at / 1000.0) at time zone 'UTC', 'YYYY-MM-DD') as day,
        left(r.conversation_id, length(r.conversation_id) - length(coalesce(cv.thread, '-')) - 1) as channel,
        sum(r.tokens) as tokens, sum(coalesce(c.cost_usd, 0)) as usd
        from runs r join conversations cv on cv.id = r.conversation_id left join run_costs c on c.run_id = r.id
        where r.started_at >= ${fromMs} group by 1, 2 order by 1, 2`);
      return channelUsageRows.parse(result.rows);
    },
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
        .limit(limit),
    sharedMemories: (limit) =>
      db
        .select()
        .from(memories)
        .where(inArray(memories.scope, ['channel', 'workspace']))
        .orderBy(desc(memories.id))
        .limit(limit),
    async traceOf(runId) {
      const [row] = await db.select({ t: runTraces.traceparent }).from(runTraces).where(eq(runTraces.runId, runId));
      return row?.t ?? null;
    },
  };
}
