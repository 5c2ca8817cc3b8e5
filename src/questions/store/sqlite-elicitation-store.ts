import { and, asc, desc, eq, inArray, isNull, ne } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { elicitations } from '../../db/schema.js';
import type { ElicitationStore } from '../../runs/elicitation-store.js';
import type { Synchronous } from '../../store/sqlite/synchronous.js';

/** MCP servers' questions on SQLite: one process holds the file, but settling is the same compare-and-swap as on PostgreSQL. */
export function createSqliteElicitationStore(db: Db): Synchronous<ElicitationStore> {
  return {
    add(q) {
      db.insert(elicitations)
        .values({ ...q, state: 'waiting' })
        .run();
    },
    get(id) {
      return db.select().from(elicitations).where(eq(elicitations.id, id)).get() ?? null;
    },
    setMessage(id, messageId) {
      db.update(elicitations).set({ messageId }).where(eq(elicitations.id, id)).run();
    },
    settle(id, end, now) {
      const r = db
        .update(elicitations)
        .set({ state: end.state, answer: end.answer, answeredBy: end.answeredBy, outcome: end.outcome, settledAt: now })
        .where(and(eq(elicitations.id, id), eq(elicitations.state, 'waiting')))
        .run();
      return r.changes === 1;
    },
    settledAmong(ids) {
      if (ids.length === 0) return [];
      return db
        .select()
        .from(elicitations)
        .where(and(inArray(elicitations.id, [...ids]), ne(elicitations.state, 'waiting')))
        .all();
    },
    newestOf(runId) {
      return (
        db
          .select()
          .from(elicitations)
          .where(eq(elicitations.runId, runId))
          .orderBy(desc(elicitations.askedAt))
          .limit(1)
          .get() ?? null
      );
    },
    carriedOverTo(platform, principal) {
      return db
        .select()
        .from(elicitations)
        .where(
          and(
            eq(elicitations.platform, platform),
            eq(elicitations.principal, principal),
            eq(elicitations.state, 'waiting'),
            eq(elicitations.carriedOver, true),
          ),
        )
        .orderBy(asc(elicitations.askedAt))
        .all();
    },
    carryOver(id) {
      db.update(elicitations).set({ carriedOver: true }).where(eq(elicitations.id, id)).run();
    },
    takeReplay(runId, fingerprint, now) {
      const row = db
        .select()
        .from(elicitations)
        .where(
          and(
            eq(elicitations.runId, runId),
            eq(elicitations.fingerprint, fingerprint),
            eq(elicitations.carriedOver, true),
            eq(elicitations.state, 'answered'),
            isNull(elicitations.replayedAt),
          ),
        )
        .orderBy(desc(elicitations.askedAt))
        .limit(1)
        .get();
      if (!row) return null;
      const r = db
        .update(elicitations)
        .set({ replayedAt: now })
        .where(and(eq(elicitations.id, row.id), isNull(elicitations.replayedAt)))
        .run();
      return r.changes === 1 ? { ...row, replayedAt: now } : null;
    },
  };
}
