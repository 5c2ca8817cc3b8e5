import { and, asc, eq, getTableColumns, lte, or, sql } from 'drizzle-orm';
import { conversations, tasks } from '../../db/pg-schema.js';
import { prepared, preparedText } from './pg-prepared.js';

/*
 * The to-do queue's hot-path statements on PostgreSQL (pg-task-store.ts), each built once by drizzle and
 * prepared by name (pg-prepared.ts).
 */

const P = sql.placeholder;
export const lockConversationRow = prepared((d) =>
  d
    .select({ id: conversations.id })
    .from(conversations)
    .where(eq(conversations.id, P('id')))
    .for('no key update'),
);
export const taskById = prepared((d) =>
  d
    .select()
    .from(tasks)
    .where(eq(tasks.id, P('id'))),
);
export const blockingOf = prepared((d) =>
  d
    .select({ id: tasks.id, status: tasks.status, blockedBy: tasks.blockedBy, blocked: tasks.blocked })
    .from(tasks)
    .where(eq(tasks.conversationId, P('conversationId'))),
);
export const finishTask = prepared((d) =>
  d
    .update(tasks)
    .set({
      status: sql`${P('status')}`,
      resultSummary: sql`coalesce(${P('resultSummary')}, ${tasks.resultSummary})`,
      failReason: sql`coalesce(${P('failReason')}, ${tasks.failReason})`,
      updatedAt: sql`${P('now')}`,
      finishedAt: sql`${P('now')}`,
    })
    .where(
      and(
        eq(tasks.id, P('id')),
        eq(tasks.conversationId, P('conversationId')),
        or(sql`${tasks.status} not in ('completed', 'failed', 'cancelled')`, eq(tasks.status, P('status'))),
      ),
    )
    // Whether any pending task of the conversation names a blocker or is blocked: only then may a flag change.
    .returning({
      ...getTableColumns(tasks),
      blockersPending: sql<boolean>`exists (select 1 from ${tasks} o where o.conversation_id = ${P('conversationId')} and o.status = 'pending' and (o.blocked or o.blocked_by <> '[]'::jsonb))`,
    }),
);
/**
 * No run is active in the conversation of the task row `task` names, as a lookup of that conversation: `offset 0`
 * keeps PostgreSQL from turning it into an anti-join, which scanned the whole partial index of active runs once per
 * ready task; that index keeps an entry for every run ended since the table's last vacuum, which a bitmap scan never
 * marks dead (231 µs a call of the pump's read in the benchmark).
 */
const noActiveRun = (task: string) =>
  `not exists (select 1 from runs r where r.conversation_id = ${task}.conversation_id and r.status in ('running', 'waiting_user') offset 0)`;
const NO_ACTIVE_RUN = sql.raw(noActiveRun('"tasks"'));
const READY = sql`${tasks.status} = 'pending' and ${tasks.blocked} = false`;
export const readyIn = prepared((d) =>
  d
    .select({ id: tasks.id })
    .from(tasks)
    .where(and(eq(tasks.conversationId, P('conversationId')), READY, lte(tasks.notBefore, P('now')), NO_ACTIVE_RUN))
    .limit(1),
);
/**
 * The ready conversations, skipping `skip`, at most `limit` (SQL placeholders), in the order of the index of ready
 * tasks (`not_before`, then conversation), each at its earliest ready task; the read stops at the limit, so its
 * work follows how many it returns, not how many wait (a backlog of 5 000 ready conversations cost 3 ms a call
 * when they were all grouped and sorted, 0.7 ms so). "No earlier ready task there" is a lookup of the
 * conversation, as `noActiveRun` is.
 */
function readyConversationsSql(now: string, skip: string, limit: string): string {
  return `select t.conversation_id as id from tasks t where t.status = 'pending' and t.blocked = false and t.not_before <= ${now}
and t.conversation_id <> all(${skip}) and ${noActiveRun('t')}
and not exists (select 1 from tasks e where e.conversation_id = t.conversation_id and e.status = 'pending' and e.blocked = false
and e.not_before <= ${now} and (e.not_before, e.id) < (t.not_before, t.id) offset 0)
order by t.not_before, t.conversation_id limit ${limit}`;
}
export const readyConversations = preparedText<{ id: string }>(
  readyConversationsSql('$1::bigint', '$2::text[]', '$3::integer'),
);
export const claimNextTask = prepared((d) => {
  // One statement: the conversation's first ready task, unless one of its tasks is in progress already.
  const next = d
    .select({ id: tasks.id })
    .from(tasks)
    .where(
      and(
        eq(tasks.conversationId, P('conversationId')),
        READY,
        lte(tasks.notBefore, P('now')),
        sql`not exists (select 1 from ${tasks} b where b.conversation_id = ${P('conversationId')} and b.status = 'in_progress')`,
      ),
    )
    .orderBy(asc(tasks.sequence))
    .limit(1)
    .for('update', { skipLocked: true });
  return d
    .update(tasks)
    .set({
      status: 'in_progress',
      attempts: sql`${tasks.attempts} + 1`,
      startedAt: sql`${P('now')}`,
      updatedAt: sql`${P('now')}`,
    })
    .where(and(eq(tasks.id, next), eq(tasks.status, 'pending')))
    .returning();
});
/**
 * The pump's reads in one statement (issue 40): whether a waiting run is due to resume (as the run store's
 * expired-question read), whether `$2` (the conversation whose run just ended; null: none) has a ready task
 * (`readyIn`), and the other ready conversations (`readyConversations`, skipping `$3`, at most `$4`).
 */
export const DUE_WORK_SQL = `select exists (select 1 from runs where status = 'waiting_user' and ask_expires_at <= $1::bigint) as due,
exists (select 1 from tasks t where t.conversation_id = $2::text and t.status = 'pending' and t.blocked = false
and t.not_before <= $1::bigint and ${noActiveRun('t')}) as here,
array (${readyConversationsSql('$1::bigint', '$3::text[]', '$4::integer')}) as ready`;
export const dueWorkRead = preparedText<{ due: boolean; here: boolean; ready: string[] }>(DUE_WORK_SQL);
