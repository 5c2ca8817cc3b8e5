import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import type { ToolGrantStore } from '../../conversations/tool-grant-store.js';
import type { Synchronous } from './synchronous.js';

/** Tool grants on SQLite (`tool_consents`, per person): a primary-key lookup and an idempotent insert. */

export function createSqliteToolGrantStore(db: Db, clock: Clock): Synchronous<ToolGrantStore> {
  const find = db.$client
    .prepare('select 1 from tool_consents where conversation_id = ? and tool = ? and principal = ?')
    .pluck();
  const insert = db.$client.prepare(
    'insert into tool_consents (conversation_id, tool, principal, granted_by, created_at) values (?, ?, ?, ?, ?) on conflict do nothing',
  );
  return {
    isGranted(conversationId, tool, principal) {
      return find.get(conversationId, tool, principal ?? '') !== undefined;
    },
    grant(conversationId, tool, grantedBy, principal) {
      insert.run(conversationId, tool, principal ?? '', grantedBy, clock.now());
    },
  };
}
