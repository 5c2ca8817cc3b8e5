import type { Clock } from '../clock.js';
import type { Db } from '../db/client.js';

/** "Always allow here": tools a person approved for every later call in one conversation. */
export interface ToolGrantStore {
  isGranted(conversationId: string, tool: string): boolean;
  grant(conversationId: string, tool: string, grantedBy: string | null): void;
}

export function createToolGrantStore(db: Db, clock: Clock): ToolGrantStore {
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
