import { and, count, desc, eq, gte, or, sql, type SQL } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import { conversationSummaries, memories, messages, privateSummaries, recalledMemories } from '../../db/pg-schema.js';
import type { MemoryScope } from '../../db/schema.js';
import type { MemoryStore, MemoryVisibility } from '../../memory/memory-store.js';
import { searchTerms, tsQuery } from '../../memory/search-terms.js';
import { withoutMemory } from '../../memory/recall-redaction.js';
import type { PgExecutor } from './pg-executor.js';

/** The rows one visibility allows: each scope with its own subject, never another's. */
function visibleTo(v: MemoryVisibility, scope?: MemoryScope): SQL {
  const parts: SQL[] = [];
  if (v.person !== null && (!scope || scope === 'me')) parts.push(and(eq(memories.scope, 'me'), eq(memories.subject, v.person))!);
  if (!scope || scope === 'channel') parts.push(and(eq(memories.scope, 'channel'), eq(memories.subject, v.channel))!);
  if (!scope || scope === 'workspace') parts.push(and(eq(memories.scope, 'workspace'), eq(memories.subject, v.workspace))!);
  return parts.length > 0 ? or(...parts)! : sql`false`;
}

/**
 * Summaries and memories on PostgreSQL, shared by every process. The summary's compare-and-swap is one
 * conditional statement; memories are searched through the generated `search` tsvector (GIN index).
 */
export function createPgMemoryStore(db: PgExecutor, clock: Clock): MemoryStore {
  return {
    async summary(conversationId) {
      const rows = await db.select().from(conversationSummaries).where(eq(conversationSummaries.conversationId, conversationId));
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
        .where(and(eq(conversationSummaries.conversationId, conversationId), eq(conversationSummaries.version, expectedVersion)))
        .returning({ version: conversationSummaries.version });
      return rows.length === 1;
    },
    async summariesIn(channel, limit) {
      // Conversation keys of the channel are `channel:thread`: the range between ":" and the next character, ";" (compared bytewise).
      const inChannel = and(sql`${conversationSummaries.conversationId} collate "C" > ${`${channel}:`}`, sql`${conversationSummaries.conversationId} collate "C" < ${`${channel};`}`);
      return db.select().from(conversationSummaries).where(inChannel).orderBy(desc(conversationSummaries.updatedAt)).limit(limit);
    },
    async remember(memory) {
      const rows = await db.insert(memories).values({ ...memory, createdAt: clock.now() }).returning();
      return rows[0]!;
    },
    async countBy(createdBy) {
      const rows = await db.select({ n: count() }).from(memories).where(eq(memories.createdBy, createdBy));
      return rows[0]?.n ?? 0;
    },
    async search(visibility, query, limit, scope) {
      const terms = searchTerms(query);
      if (terms.length === 0) return [];
      const q = sql`to_tsquery('english', ${tsQuery(terms)})`;
      return db
        .select()
        .from(memories)
        .where(and(visibleTo(visibility, scope), sql`"memories"."search" @@ ${q}`))
        .orderBy(sql`ts_rank("memories"."search", ${q}) desc`, desc(memories.id))
        .limit(limit);
    },
    async newest(visibility, limit, scope) {
      return db.select().from(memories).where(visibleTo(visibility, scope)).orderBy(desc(memories.id)).limit(limit);
    },
    async memory(id) {
      const rows = await db.select().from(memories).where(eq(memories.id, id));
      return rows[0] ?? null;
    },
    async forget(id) {
      return db.transaction(async (tx) => {
        const shown = await tx
          .select({ id: messages.id, content: messages.content, conversationId: messages.conversationId, privateTo: messages.privateTo })
          .from(recalledMemories)
          .innerJoin(messages, eq(messages.id, recalledMemories.messageId))
          .where(eq(recalledMemories.memoryId, id));
        for (const row of shown) {
          const redacted = withoutMemory(row.content, id);
          if (redacted !== null) await tx.update(messages).set({ content: redacted }).where(eq(messages.id, row.id));
          if (row.privateTo === null) continue;
          const covering = and(eq(privateSummaries.conversationId, row.conversationId), eq(privateSummaries.owner, row.privateTo), gte(privateSummaries.throughMessageId, row.id));
          await tx.delete(privateSummaries).where(covering);
        }
        await tx.delete(recalledMemories).where(eq(recalledMemories.memoryId, id));
        const rows = await tx.delete(memories).where(eq(memories.id, id)).returning({ id: memories.id });
        return rows.length === 1;
      });
    },
    async privateSummary(conversationId, owner) {
      const rows = await db.select().from(privateSummaries).where(and(eq(privateSummaries.conversationId, conversationId), eq(privateSummaries.owner, owner)));
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
      const mine = and(eq(privateSummaries.conversationId, conversationId), eq(privateSummaries.owner, owner), eq(privateSummaries.version, expectedVersion));
      const rows = await db.update(privateSummaries).set({ summary, throughMessageId, version: expectedVersion + 1, updatedAt: now }).where(mine).returning({ version: privateSummaries.version });
      return rows.length === 1;
    },
  };
}
