import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import { runs, type RunRow } from '../../db/schema.js';
import { ConversationBusyError } from '../../run-records/conversation-busy-error.js';
import type { RunStore } from '../../run-records/run-store.js';
import { RUN_COLUMNS, runFromRaw } from '../../store/sqlite/raw-rows.js';
import { limitedStatement } from '../../store/sqlite/limited-statement.js';
import type { Synchronous } from '../../store/sqlite/synchronous.js';
import { writeGroup } from '../../store/sqlite/write-group.js';

/** Runs on SQLite: prepared statements, and partial indexes matched by literal statuses. No owners or fences: one process holds the file. */
export function createSqliteRunStore(db: Db, clock: Clock): Synchronous<RunStore> {
  const c = db.$client;
  const atomic = writeGroup(c);
  // Raw rows mapped by position (raw-rows.ts): these run several times per message.
  const getStmt = c.prepare(`select ${RUN_COLUMNS} from runs where id = ?`).raw();
  // Literal statuses, so SQLite can use the partial unique index of active runs.
  const activeStmt = c
    .prepare(`select ${RUN_COLUMNS} from runs where conversation_id = ? and status in ('running', 'waiting_user')`)
    .raw();
  // The partial unique index of active runs is the arbiter: a second active run inserts nothing.
  const createStmt = c
    .prepare(
      `insert into runs (id, conversation_id, task_id, status, started_at, updated_at, principal, principal_roles) values (?, ?, ?, 'running', ?, ?, ?, ?) on conflict do nothing returning ${RUN_COLUMNS}`,
    )
    .raw();
  // Prepared once per limit (pump() asks after every run), with the status literal so SQLite can use the partial index of waiting runs.
  // Conversation keys of a platform are `platform:…`: the range from ":" to ";", the next character.
  const waitingForStmt = c
    .prepare(
      `select ${RUN_COLUMNS} from runs where status = 'waiting_user' and principal = ? and conversation_id > ? and conversation_id < ? order by started_at limit ?`,
    )
    .raw();
  const expiredStmt = limitedStatement(
    c,
    `select ${RUN_COLUMNS} from runs where status = 'waiting_user' and ask_expires_at <= ? limit {limit}`,
    (s) => s.raw(),
  );
  const finalStmt = c.prepare(
    `update runs set status = ?, summary = coalesce(?, summary), error = coalesce(?, error), updated_at = ?, ended_at = ?, question = null, ask_expires_at = null
     where id = ? and status in (select value from json_each(?))`,
  );
  const questionMessageStmt = db.$client.prepare(
    "update runs set question = json_set(question, '$.messageId', ?) where id = ? and status = 'waiting_user' and question is not null",
  );
  const recordAnswerStmt = db.$client.prepare(
    "update runs set question = json_set(question, '$.answer', json(?)), ask_expires_at = 0, updated_at = ? where id = ? and status = 'waiting_user' and question is not null",
  );
  // One statement, so the check and the write cannot be split by another writer.
  const recordClickStmt = db.$client.prepare(
    `update runs set question = json_set(question, '$.answer', json(?)), ask_expires_at = 0, updated_at = ?
     where id = ? and status = 'waiting_user' and json_extract(question, '$.id') = ? and json_type(question, '$.answer') is null`,
  );
  const countStepStmt = db.$client.prepare(
    'update runs set steps = steps + 1, updated_at = ? where id = ? returning steps',
  );
  const one = (raw: unknown): RunRow | null => (raw === undefined ? null : runFromRaw(raw as unknown[]));
  const get = (id: string) => one(getStmt.get(id));
  return {
    create(conversationId, taskId, principal) {
      const now = clock.now();
      const roles = principal?.roles && principal.roles.length > 0 ? JSON.stringify(principal.roles) : null;
      const raw = createStmt.get(randomUUID(), conversationId, taskId, now, now, principal?.userId ?? null, roles) as
        unknown[] | undefined;
      if (!raw) throw new ConversationBusyError(conversationId);
      return runFromRaw(raw);
    },
    get,
    active(conversationId) {
      return one(activeStmt.get(conversationId));
    },
    transition(id, from, to, fields = {}) {
      const now = clock.now();
      return (
        finalStmt.run(to, fields.summary ?? null, fields.error ?? null, now, now, id, JSON.stringify(from)).changes ===
        1
      );
    },
    park(id, question, expiresAt, from = 'running') {
      const res = db
        .update(runs)
        .set({ status: 'waiting_user', question, askExpiresAt: expiresAt, updatedAt: clock.now() })
        .where(and(eq(runs.id, id), eq(runs.status, from)))
        .run();
      return res.changes === 1;
    },
    recordAnswer(id, answer, questionId) {
      if (questionId !== undefined)
        return recordClickStmt.run(JSON.stringify(answer), clock.now(), id, questionId).changes === 1;
      return recordAnswerStmt.run(JSON.stringify(answer), clock.now(), id).changes === 1;
    },
    setQuestionMessage(id, messageId) {
      questionMessageStmt.run(messageId, id);
    },
    unpark(id) {
      return atomic(() => {
        const r = get(id);
        if (!r || r.status !== 'waiting_user' || !r.question) return null;
        db.update(runs)
          .set({ status: 'running', question: null, askExpiresAt: null, updatedAt: clock.now() })
          .where(eq(runs.id, id))
          .run();
        return r.question;
      });
    },
    countStep(id) {
      const r = countStepStmt.get(clock.now(), id) as { steps: number } | undefined;
      return r?.steps ?? 0;
    },
    interruptAllRunning() {
      return atomic(() => {
        const stuck = db.select().from(runs).where(eq(runs.status, 'running')).all();
        const now = clock.now();
        if (stuck.length > 0)
          db.update(runs)
            .set({ status: 'interrupted', updatedAt: now, endedAt: now })
            .where(eq(runs.status, 'running'))
            .run();
        return stuck;
      });
    },
    waitingFor(platform, principal, limit) {
      return (waitingForStmt.all(principal, `${platform}:`, `${platform};`, limit) as unknown[][]).map(runFromRaw);
    },
    expiredQuestions(limit) {
      return (expiredStmt(limit).all(clock.now()) as unknown[][]).map(runFromRaw);
    },
    // One process holds the database (its lock file): nobody else can take a run over, so every fence holds.
    fence(id) {
      if (!getStmt.get(id)) throw new Error(`no run ${id} to read the fence of`);
      return { runId: id, owner: null, generation: 0 };
    },
    holds() {
      return true;
    },
  };
}
