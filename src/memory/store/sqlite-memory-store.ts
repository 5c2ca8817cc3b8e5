import { and, count, desc, eq, gt, gte, lt, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import {
  conversationSummaries,
  memories,
  messages,
  privateSummaries,
  recalledMemories,
  type MemoryRow,
  type MemoryScope,
} from '../../db/schema.js';
import { isMemoryId, type MemoryStore, type MemoryVisibility } from '../memory-store.js';
import { fts5Query, ownerToken, rankByTerms, searchTerms } from '../search-terms.js';
import { isVisible } from '../memory-visibility.js';
import { withoutMemory } from '../recall-redaction.js';
import type { Synchronous } from '../../store/sqlite/synchronous.js';

/** The newest matching memories a search ranks: enough for relevance, bounded in time. */
const SEARCH_CANDIDATES = 500;

/** The (scope, subject) pairs one visibility allows (only `scope`'s, when given). */
function subjectsOf(v: MemoryVisibility, scope?: MemoryScope): [MemoryScope, string][] {
  const pairs: [MemoryScope, string][] = [];
  if (v.person !== null && (!scope || scope === 'me')) pairs.push(['me', v.person]);
  if (!scope || scope === 'channel') pairs.push(['channel', v.channel]);
  if (v.workspace !== null && (!scope || scope === 'workspace')) pairs.push(['workspace', v.workspace]);
  return pairs;
}

/** A memory row as SQLite returns it (column names as stored). */
interface RawMemory {
  id: number;
  scope: MemoryScope;
  subject: string;
  text: string;
  created_by: string;
  created_at: number;
}

const memoryOf = (r: RawMemory): MemoryRow => ({
  id: r.id,
  scope: r.scope,
  subject: r.subject,
  text: r.text,
  createdBy: r.created_by,
  createdAt: r.created_at,
});

const ownerKey = (scope: MemoryScope, subject: string): string => `${scope}\u0000${subject}`;

/**
 * Summaries and memories on SQLite; memories are searched through the FTS5 table `memories_fts`.
 *
 * Every model request asks for the memories of its person, channel and workspace, and in most teams most
 * of them have none. One process holds a SQLite database (db/process-lock.ts) and every memory is written
 * here, so the store keeps which owners (scope and subject) have any, read once at start, and reads nothing
 * for the others. A forget leaves its owner listed (it may have more): a listed owner is only read.
 */
export function createSqliteMemoryStore(db: Db, clock: Clock): Synchronous<MemoryStore> {
  const owners = new Set(
    db.$client
      .prepare<[], { scope: MemoryScope; subject: string }>('select distinct scope, subject from memories')
      .all()
      .map((r) => ownerKey(r.scope, r.subject)),
  );
  const held = (pairs: [MemoryScope, string][]) =>
    pairs.filter(([scope, subject]) => owners.has(ownerKey(scope, subject)));
  // Prepared once: every model request reads its conversation's summary and its memories.
  const summaryStmt = db
    .select()
    .from(conversationSummaries)
    .where(eq(conversationSummaries.conversationId, sql.placeholder('id')))
    .prepare();
  const privateSummaryStmt = db
    .select()
    .from(privateSummaries)
    .where(
      and(
        eq(privateSummaries.conversationId, sql.placeholder('id')),
        eq(privateSummaries.owner, sql.placeholder('owner')),
      ),
    )
    .prepare();
  const matchStmt = db.$client.prepare<[string], { id: number }>(
    'select rowid as id from memories_fts where memories_fts match ?',
  );
  // Plain statements (mapped by hand): drizzle's generic mapping cost more than these index reads themselves.
  const byIdsStmt = db.$client.prepare<[string], RawMemory>(
    'select id, scope, subject, text, created_by, created_at from memories where id in (select value from json_each(?))',
  );
  const newestStmt = db.$client.prepare<[MemoryScope, string, number], RawMemory>(
    'select id, scope, subject, text, created_by, created_at from memories where scope = ? and subject = ? order by id desc limit ?',
  );
  return {
    summary(conversationId) {
      return summaryStmt.get({ id: conversationId }) ?? null;
    },
    saveSummary(conversationId, expectedVersion, summary, throughMessageId) {
      const now = clock.now();
      if (expectedVersion === 0) {
        const r = db
          .insert(conversationSummaries)
          .values({ conversationId, summary, throughMessageId, version: 1, updatedAt: now })
          .onConflictDoNothing()
          .run();
        return r.changes === 1;
      }
      const r = db
        .update(conversationSummaries)
        .set({ summary, throughMessageId, version: expectedVersion + 1, updatedAt: now })
        .where(
          and(
            eq(conversationSummaries.conversationId, conversationId),
            eq(conversationSummaries.version, expectedVersion),
          ),
        )
        .run();
      return r.changes === 1;
    },
    summariesIn(channel, limit) {
      // Conversation keys of the channel are `channel:thread`: the range between ":" and the next character, ";".
      const inChannel = and(
        gt(conversationSummaries.conversationId, `${channel}:`),
        lt(conversationSummaries.conversationId, `${channel};`),
      );
      return db
        .select()
        .from(conversationSummaries)
        .where(inChannel)
        .orderBy(desc(conversationSummaries.updatedAt))
        .limit(limit)
        .all();
    },
    remember(memory) {
      const row = db
        .insert(memories)
        .values({ ...memory, createdAt: clock.now() })
        .returning()
        .get();
      owners.add(ownerKey(row.scope, row.subject));
      return row;
    },
    countBy(createdBy) {
      return db.select({ n: count() }).from(memories).where(eq(memories.createdBy, createdBy)).get()?.n ?? 0;
    },
    search(visibility, query, limit, scope) {
      const asked = held(subjectsOf(visibility, scope));
      if (asked.length === 0) return [];
      const terms = searchTerms(query);
      if (terms.length === 0) return [];
      // The index intersects the asker's own memories (their owner tokens) with the words; the newest matches
      // are read and re-checked for visibility, then ranked here (bm25 over every match cost far more).
      const ids = matchStmt
        .all(
          fts5Query(
            asked.map(([s, subject]) => ownerToken(s, subject)),
            terms,
          ),
        )
        .map((r) => r.id);
      if (ids.length === 0) return [];
      ids.sort((a, b) => b - a);
      const found = byIdsStmt
        .all(JSON.stringify(ids.slice(0, SEARCH_CANDIDATES)))
        .map(memoryOf)
        .filter((m) => (!scope || m.scope === scope) && isVisible(m, visibility));
      return rankByTerms(found, terms).slice(0, limit);
    },
    newest(visibility, limit, scope) {
      // One short reverse range of the (scope, subject, id) index per subject, merged: no sort of everything visible.
      const rows = held(subjectsOf(visibility, scope)).flatMap(([s, subject]) =>
        newestStmt.all(s, subject, limit).map(memoryOf),
      );
      return rows.sort((a, b) => b.id - a.id).slice(0, limit);
    },
    memory(id) {
      if (!isMemoryId(id)) return null;
      return db.select().from(memories).where(eq(memories.id, id)).get() ?? null;
    },
    forget(id) {
      if (!isMemoryId(id)) return false;
      return db.transaction((tx) => {
        const shown = tx
          .select({
            id: messages.id,
            content: messages.content,
            conversationId: messages.conversationId,
            privateTo: messages.privateTo,
          })
          .from(recalledMemories)
          .innerJoin(messages, eq(messages.id, recalledMemories.messageId))
          .where(eq(recalledMemories.memoryId, id))
          .all();
        for (const row of shown) {
          const redacted = withoutMemory(row.content, id);
          if (redacted !== null) tx.update(messages).set({ content: redacted }).where(eq(messages.id, row.id)).run();
          if (row.privateTo === null) continue;
          const covering = and(
            eq(privateSummaries.conversationId, row.conversationId),
            eq(privateSummaries.owner, row.privateTo),
            gte(privateSummaries.throughMessageId, row.id),
          );
          tx.delete(privateSummaries).where(covering).run();
        }
        tx.delete(recalledMemories).where(eq(recalledMemories.memoryId, id)).run();
        return tx.delete(memories).where(eq(memories.id, id)).run().changes === 1;
      });
    },
    privateSummary(conversationId, owner) {
      return privateSummaryStmt.get({ id: conversationId, owner }) ?? null;
    },
    savePrivateSummary(conversationId, owner, expectedVersion, summary, throughMessageId) {
      const now = clock.now();
      if (expectedVersion === 0) {
        return (
          db
            .insert(privateSummaries)
            .values({ conversationId, owner, summary, throughMessageId, version: 1, updatedAt: now })
            .onConflictDoNothing()
            .run().changes === 1
        );
      }
      const mine = and(
        eq(privateSummaries.conversationId, conversationId),
        eq(privateSummaries.owner, owner),
        eq(privateSummaries.version, expectedVersion),
      );
      return (
        db
          .update(privateSummaries)
          .set({ summary, throughMessageId, version: expectedVersion + 1, updatedAt: now })
          .where(mine)
          .run().changes === 1
      );
    },
  };
}
