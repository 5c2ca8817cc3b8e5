import type { OpenWorkStore } from '../../conversations/open-work-by-person.js';
import type { Db } from '../../db/client.js';
import type { Synchronous } from './synchronous.js';

/**
 * The conversations of one workspace where a person's tasks are pending or in progress, newest
 * first, at most `limit` (the App Home shows a screenful). Reads the open-task partial range only.
 */
export function createSqliteOpenWorkStore(db: Db): Synchronous<OpenWorkStore> {
  const stmt = db.$client.prepare(
    `select conversation_id as conversationId,
            coalesce(max(case when status = 'in_progress' then title end), min(title)) as title,
            max(status = 'in_progress') as inProgress,
            sum(status = 'pending') as pending,
            max(created_at) as latest
       from tasks
      where requested_by = @user and status in ('pending', 'in_progress') and conversation_id >= @lo and conversation_id < @hi
      group by conversation_id order by latest desc limit @limit`,
  );
  return {
    byPerson(platform, workspace, userId, limit) {
      const rows = stmt.all({
        user: userId,
        lo: `${platform}:${workspace}:`,
        hi: `${platform}:${workspace};`,
        limit,
      }) as { conversationId: string; title: string; inProgress: number; pending: number }[];
      return rows.map((r) => ({
        conversationId: r.conversationId,
        title: r.title,
        inProgress: r.inProgress === 1,
        pending: r.pending,
      }));
    },
  };
}
