import { and, count, desc, eq, or, sql, type SQL } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import { conversationSummaries, memories, type MemoryScope } from '../../db/schema.js';
import type { MemoryStore, MemoryVisibility } from '../../memory/memory-store.js';
import { fts5Query, searchTerms } from '../../memory/search-terms.js';
import type { Synchronous } from './synchronous.js';

/** The rows one visibility allows: each scope with its own subject, never another's. */
function visibleTo(v: MemoryVisibility, scope?: MemoryScope): SQL {
  const parts: SQL[] = [];
  if (v.person !== null && (!scope || scope === 'me')) parts.push(and(eq(memories.scope, 'me'), eq(memories.subject, v.person))!);
  if (!scope || scope === 'channel') parts.push(and(eq(memories.scope, 'channel'), eq(memories.subject, v.channel))!);
  if (!scope || scope === 'workspace') parts.push(and(eq(memories.scope, 'workspace'), eq(memories.subject, v.workspace))!);
  return parts.length > 0 ? or(...parts)! : sql`0`;
}

/** A memory as the full-text join returns it (column names as stored). */
interface RawMemory {
  id: number;
  scope: MemoryScope;
  subject: string;
  text: string;
  created_by: string;
  created_at: number;
}

/** Summaries and memories on SQLite; memories are searched through the FTS5 table `memories_fts`. */
export function createSqliteMemoryStore(db: Db, clock: Clock): Synchronous<MemoryStore> {
  return {
    summary(conversationId) {
      return db.select().from(conversationSummaries).where(eq(conversationSummaries.conversationId, conversationId)).get() ?? null;
    },
    saveSummary(conversationId, expectedVersion, summary, throughMessageId) {
      const now = clock.now();
      if (expectedVersion === 0) {
        const r = db.insert(conversationSummaries).values({ conversationId, summary, throughMessageId, version: 1, updatedAt: now }).onConflictDoNothing().run();
        return r.changes === 1;
      }
      const r = db
        .update(conversationSummaries)
        .set({ summary, throughMessageId, version: expectedVersion + 1, updatedAt: now })
        .where(and(eq(conversationSummaries.conversationId, conversationId), eq(conversationSummaries.version, expectedVersion)))
        .run();
      return r.changes === 1;
    },
    remember(memory) {
      return db.insert(memories).values({ ...memory, createdAt: clock.now() }).returning().get();
    },
    countBy(createdBy) {
      return db.select({ n: count() }).from(memories).where(eq(memories.createdBy, createdBy)).get()?.n ?? 0;
    },
    search(visibility, query, limit, scope) {
      const terms = searchTerms(query);
      if (terms.length === 0) return [];
      const rows = db.all<RawMemory>(sql`
        select memories.id, memories.scope, memories.subject, memories.text, memories.created_by, memories.created_at
        from memories_fts join memories on memories.id = memories_fts.rowid
        where memories_fts match ${fts5Query(terms)} and ${visibleTo(visibility, scope)}
        order by memories_fts.rank, memories.id desc limit ${limit}`);
      return rows.map((r) => ({ id: r.id, scope: r.scope, subject: r.subject, text: r.text, createdBy: r.created_by, createdAt: r.created_at }));
    },
    newest(visibility, limit, scope) {
      return db.select().from(memories).where(visibleTo(visibility, scope)).orderBy(desc(memories.id)).limit(limit).all();
    },
    memory(id) {
      return db.select().from(memories).where(eq(memories.id, id)).get() ?? null;
    },
    forget(id) {
      return db.delete(memories).where(eq(memories.id, id)).run().changes === 1;
    },
  };
}
