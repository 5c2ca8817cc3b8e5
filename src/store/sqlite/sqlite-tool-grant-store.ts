import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import type { ToolGrantStore } from '../../conversations/tool-grant-store.js';
import type { Synchronous } from './synchronous.js';

/** Tool grants on SQLite: a primary-key lookup and an idempotent insert. */

export function createSqliteToolGrantStore(db: Db, clock: Clock): Synchronous<ToolGrantStore> {
  const find = db.$client.prepare('select 1 from tool_grants where conversation_id = ? and tool = ?').pluck();
  const insert = db.$client.prepare('insert into tool_grants (conversation_id, tool, granted_by, created_at) values (?, ?, ?, ?) on conflict do nothing');
  return {
    isGranted(conversationId, tool) {
      return find.get(conversationId, tool) !== undefined;
    },
    grant(conversationId, tool, grantedBy) {
      insert.run(conversationId, tool, grantedBy, clock.now());
    },
  };
}
