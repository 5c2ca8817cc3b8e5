import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { OpenWorkStore } from '../../conversations/open-work-by-person.js';
import type { PgExecutor } from './pg-executor.js';

const rows = z.array(
  z.object({ conversationId: z.string(), title: z.string(), inProgress: z.boolean(), pending: z.coerce.number() }),
);

/** A person's open work on PostgreSQL: the SQLite query with boolean aggregates; counts come back as strings. */
export function createPgOpenWorkStore(db: PgExecutor): OpenWorkStore {
  return {
    async byPerson(platform, workspace, userId, limit) {
      const result = await db.execute(sql`select conversation_id as "conversationId",
            coalesce(max(case when status = 'in_progress' then title end), min(title)) as title,
            bool_or(status = 'in_progress') as "inProgress",
            count(*) filter (where status = 'pending') as pending,
            max(created_at) as latest
       from tasks
      where requested_by = ${userId} and status in ('pending', 'in_progress')
        and conversation_id >= ${`${platform}:${workspace}:`} and conversation_id < ${`${platform}:${workspace};`}
      group by conversation_id order by latest desc limit ${limit}`);
      return rows.parse(result.rows);
    },
  };
}
