import { and, asc, desc, eq, inArray, isNull, ne } from 'drizzle-orm';
import { elicitations } from '../../db/pg-schema.js';
import type { ElicitationRow } from '../../db/schema.js';
import type { ElicitationStore } from '../../runs/elicitation-store.js';
import type { PgExecutor } from '../../store/postgres/pg-executor.js';

/**
 * MCP servers' questions on PostgreSQL, shared by every process: settling and taking a replay are single
 * conditional statements, so two processes racing for either cannot both win.
 */
export function createPgElicitationStore(db: PgExecutor): ElicitationStore {
  const row = (r: typeof elicitations.$inferSelect): ElicitationRow => r;
  return {
    async add(q) {
      await db.insert(elicitations).values({ ...q, state: 'waiting' });
    },
    async get(id) {
      const [r] = await db.select().from(elicitations).where(eq(elicitations.id, id));
      return r ? row(r) : null;
    },
    async setMessage(id, messageId) {
      await db.update(elicitations).set({ messageId }).where(eq(elicitations.id, id));
    },
    async settle(id, end, now) {
      const rows = await db
        .update(elicitations)
        .set({ state: end.state, answer: end.answer, answeredBy: end.answeredBy, outcome: end.outcome, settledAt: now })
        .where(and(eq(elicitations.id, id), eq(elicitations.state, 'waiting')))
        .returning({ id: elicitations.id });
      return rows.length === 1;
    },
    async settledAmong(ids) {
      if (ids.length === 0) return [];
      const rows = await db
        .select()
        .from(elicitations)
        .where(and(inArray(elicitations.id, [...ids]), ne(elicitations.state, 'waiting')));
      return rows.map(row);
    },
    async newestOf(runId) {
      const [r] = await db
        .select()
        .from(elicitations)
        .where(eq(elicitations.runId, runId))
        .orderBy(desc(elicitations.askedAt))
        .limit(1);
      return r ? row(r) : null;
    },
    async carriedOverTo(platform, principal) {
      const rows = await db
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
        .orderBy(asc(elicitations.askedAt));
      return rows.map(row);
    },
    async carryOver(id) {
      await db.update(elicitations).set({ carriedOver: true }).where(eq(elicitations.id, id));
    },
    async takeReplay(runId, fingerprint, now) {
      const [candidate] = await db
        .select({ id: elicitations.id })
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
        .limit(1);
      if (!candidate) return null;
      const [taken] = await db
        .update(elicitations)
        .set({ replayedAt: now })
        .where(and(eq(elicitations.id, candidate.id), isNull(elicitations.replayedAt)))
        .returning();
      return taken ? row(taken) : null;
    },
  };
}
