import { and, count, desc, eq, gte, or, sql, type SQL } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import { conversationSummaries, memories, messages, privateSummaries, recalledMemories } from '../../db/pg-schema.js';
import type { MemoryScope } from '../../db/schema.js';
import { isMemoryId, type MemoryStore, type MemoryVisibility } from '../memory-store.js';
import { searchTerms, tsQuery } from '../search-terms.js';
import { withoutMemory } from '../recall-redaction.js';
import { pgReadContext } from './pg-context-read.js';
import type { PgExecutor } from '../../store/postgres/pg-executor.js';
import { prepared, type PreparedStatement } from '../../store/postgres/pg-prepared.js';

const P = sql.placeholder;

/** Which scopes one visibility (and an optional scope filter) reads: the shape of its `where`. */
function scopesOf(v: MemoryVisibility, scope?: MemoryScope): { me: boolean; channel: boolean; workspace: boolean } {
  return {
    me: v.person !== null && (!scope || scope === 'me'),
    channel: !scope || scope === 'channel',
    workspace: v.workspace !== null && (!scope || scope === 'workspace'),
  };
}

/** The rows one visibility allows: each scope with its own subject (placeholders `person`, `channel`, `workspace`), never another's. */
function visibleTo(s: { me: boolean; channel: boolean; workspace: boolean }): SQL {
  const parts: SQL[] = [];
  if (s.me) parts.push(and(eq(memories.scope, 'me'), eq(memories.subject, P('person')))!);
  if (s.channel) parts.push(and(eq(memories.scope, 'channel'), eq(memories.subject, P('channel')))!);
  if (s.workspace) parts.push(and(eq(memories.scope, 'workspace'), eq(memories.subject, P('workspace')))!);
  return parts.length > 0 ? or(...parts)! : sql`false`;
}

/** One prepared statement per shape of `where` (at most eight of each kind). */
function byShape<T>(
  build: (where: SQL) => Parameters<typeof prepared<T>>[0],
): (v: MemoryVisibility, scope?: MemoryScope) => PreparedStatement<T> {
  const made = new Map<string, PreparedStatement<T>>();
  return (v, scope) => {
    const s = scopesOf(v, scope);
    const key = `${s.me}${s.channel}${s.workspace}`;
    let statement = made.get(key);
    if (statement === undefined) made.set(key, (statement = prepared(build(visibleTo(s)))));
    return statement;
  };
}

const Q = sql`to_tsquery('english', ${P('query')})`;
const searchMemories = byShape(
  (where) => (d) =>
    d
      .select()
      .from(memories)
      .where(and(where, sql`"memories"."search" @@ ${Q}`))
      .orderBy(sql`ts_rank("memories"."search", ${Q}) desc`, desc(memories.id))
      .limit(P('limit')),
);
const newestMemories = byShape(
  (where) => (d) => d.select().from(memories).where(where).orderBy(desc(memories.id)).limit(P('limit')),
);
const summaryOf = prepared((d) =>
  d
    .select()
    .from(conversationSummaries)
    .where(eq(conversationSummaries.conversationId, P('conversationId'))),
);
const privateSummaryOf = prepared((d) =>
  d
    .select()
    .from(privateSummaries)
    .where(and(eq(privateSummaries.conversationId, P('conversationId')), eq(privateSummaries.owner, P('owner')))),
);
const subjects = (v: MemoryVisibility) => ({ person: v.person, channel: v.channel, workspace: v.workspace });

/**
 * Summaries and memories on PostgreSQL, shared by every process. The summary's compare-and-swap is one
 * conditional statement; memories are searched through the generated `search` tsvector (GIN index).
 */
export function createPgMemoryStore(db: PgExecutor, clock: Clock): MemoryStore {
  return {
    async summary(conversationId) {
      const rows = await summaryOf(db, { conversationId });
      return rows[0] ?? null;
    },
    async saveSummary(conversationId, expectedVersion, summary, throughMessageId) {
      const now = clock.now();
      if (expectedVersion === 0) {
        const rows = await db
          .insert(conversationSummaries)
          .values({ conversationId, summary, throughMessageId, version: 1, updatedAt: now })
          .onConflictDoNothing()
          .returning({ version: conversationSummaries.version });
        return rows.length === 1;
      }
      const rows = await db
        .update(conversationSummaries)
        .set({ summary, throughMessageId, version: expectedVersion + 1, updatedAt: now })
        .where(
          and(
            eq(conversationSummaries.conversationId, conversationId),
            eq(conversationSummaries.version, expectedVersion),
          ),
        )
        .returning({ version: conversationSummaries.version });
      return rows.length === 1;
    },
    async summariesIn(channel, limit) {
      // Conversation keys of the channel are `channel:thread`: the range between ":" and the next character, ";" (compared bytewise).
      const inChannel = and(
        sql`${conversationSummaries.conversationId} collate "C" > ${`${channel}:`}`,
        sql`${conversationSummaries.conversationId} collate "C" < ${`${channel};`}`,
      );
      return db
        .select()
        .from(conversationSummaries)
        .where(inChannel)
        .orderBy(desc(conversationSummaries.updatedAt))
        .limit(limit);
    },
    async remember(memory) {
      const rows = await db
        .insert(memories)
        .values({ ...memory, createdAt: clock.now() })
        .returning();
      return rows[0]!;
    },
    async countBy(createdBy) {
      const rows = await db.select({ n: count() }).from(memories).where(eq(memories.createdBy, createdBy));
      return rows[0]?.n ?? 0;
    },
    async search(visibility, query, limit, scope) {
      const terms = searchTerms(query);
      if (terms.length === 0) return [];
      return searchMemories(visibility, scope)(db, { ...subjects(visibility), query: tsQuery(terms), limit });
    },
    async newest(visibility, limit, scope) {
      return newestMemories(visibility, scope)(db, { ...subjects(visibility), limit });
    },
    async memory(id) {
      if (!isMemoryId(id)) return null;
      const rows = await db.select().from(memories).where(eq(memories.id, id));
      return rows[0] ?? null;
    },
    async forget(id) {
      if (!isMemoryId(id)) return false;
      return db.transaction(async (tx) => {
        const shown = await tx
          .select({
            id: messages.id,
            content: messages.content,
            conversationId: messages.conversationId,
            privateTo: messages.privateTo,
          })
          .from(recalledMemories)
          .innerJoin(messages, eq(messages.id, recalledMemories.messageId))
          .where(eq(recalledMemories.memoryId, id));
        for (const row of shown) {
          const redacted = withoutMemory(row.content, id);
          if (redacted !== null) await tx.update(messages).set({ content: redacted }).where(eq(messages.id, row.id));
          if (row.privateTo === null) continue;
          const covering = and(
            eq(privateSummaries.conversationId, row.conversationId),
            eq(privateSummaries.owner, row.privateTo),
            gte(privateSummaries.throughMessageId, row.id),
          );
          await tx.delete(privateSummaries).where(covering);
        }
        await tx.delete(recalledMemories).where(eq(recalledMemories.memoryId, id));
        const rows = await tx.delete(memories).where(eq(memories.id, id)).returning({ id: memories.id });
        return rows.length === 1;
      });
    },
    async privateSummary(conversationId, owner) {
      const rows = await privateSummaryOf(db, { conversationId, owner });
      return rows[0] ?? null;
    },
    async savePrivateSummary(conversationId, owner, expectedVersion, summary, throughMessageId) {
      const now = clock.now();
      if (expectedVersion === 0) {
        const rows = await db
          .insert(privateSummaries)
          .values({ conversationId, owner, summary, throughMessageId, version: 1, updatedAt: now })
          .onConflictDoNothing()
          .returning({ version: privateSummaries.version });
        return rows.length === 1;
      }
      const mine = and(
        eq(privateSummaries.conversationId, conversationId),
        eq(privateSummaries.owner, owner),
        eq(privateSummaries.version, expectedVersion),
      );
      const rows = await db
        .update(privateSummaries)
        .set({ summary, throughMessageId, version: expectedVersion + 1, updatedAt: now })
        .where(mine)
        .returning({ version: privateSummaries.version });
      return rows.length === 1;
    },
    readContext: pgReadContext(db),
  };
}
