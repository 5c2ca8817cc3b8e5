import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { CatchUpQueries, SeenMessage } from '../store.js';
import type { PgExecutor } from './pg-executor.js';

const idRows = z.array(z.object({ id: z.string() }));
const seenRows = z.array(z.object({ id: z.string(), at: z.coerce.number() }));

/** Catch-up's reads on PostgreSQL: the same queries as SQLite's, rows read back through zod. */
export function createPgCatchUpQueries(db: PgExecutor): CatchUpQueries {
  const newest = async (query: ReturnType<typeof sql>): Promise<SeenMessage | null> =>
    seenRows.parse((await db.execute(query)).rows)[0] ?? null;
  return {
    async openConversations(limit) {
      const result =
        await db.execute(sql`select conversation_id as id from runs where status in ('running', 'waiting_user')
        union select conversation_id from tasks where status in ('pending', 'in_progress') limit ${limit}`);
      return idRows.parse(result.rows).map((r) => r.id);
    },
    async lastSeen(conversationId) {
      const seen = [
        await newest(sql`select platform_message_id as id, created_at as at from messages
          where conversation_id = ${conversationId} and platform_message_id is not null order by id desc limit 1`),
        await newest(sql`select source_message_id as id, created_at as at from tasks
          where conversation_id = ${conversationId} and source_message_id is not null order by id desc limit 1`),
      ].filter((r): r is SeenMessage => r !== null);
      return seen.sort((a, b) => b.at - a.at)[0] ?? null;
    },
  };
}
