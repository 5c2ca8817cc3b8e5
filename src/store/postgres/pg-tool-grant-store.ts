import { and, eq } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { ToolGrantStore } from '../../conversations/tool-grant-store.js';
import { toolGrants } from '../../db/pg-schema.js';
import type { PgExecutor } from './pg-executor.js';

/** Tool grants on PostgreSQL: a primary-key lookup and an idempotent insert. */
export function createPgToolGrantStore(db: PgExecutor, clock: Clock): ToolGrantStore {
  return {
    async isGranted(conversationId, tool) {
      const rows = await db.select({ tool: toolGrants.tool }).from(toolGrants).where(and(eq(toolGrants.conversationId, conversationId), eq(toolGrants.tool, tool)));
      return rows.length > 0;
    },
    async grant(conversationId, tool, grantedBy) {
      await db.insert(toolGrants).values({ conversationId, tool, grantedBy, createdAt: clock.now() }).onConflictDoNothing();
    },
  };
}
