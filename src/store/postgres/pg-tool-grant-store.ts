import { and, eq } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { ToolGrantStore } from '../../conversations/tool-grant-store.js';
import { toolConsents } from '../../db/pg-schema.js';
import type { PgExecutor } from './pg-executor.js';

/** Tool grants on PostgreSQL (`tool_consents`, per person): a primary-key lookup and an idempotent insert. */
export function createPgToolGrantStore(db: PgExecutor, clock: Clock): ToolGrantStore {
  return {
    async isGranted(conversationId, tool, principal) {
      const rows = await db
        .select({ tool: toolConsents.tool })
        .from(toolConsents)
        .where(
          and(
            eq(toolConsents.conversationId, conversationId),
            eq(toolConsents.tool, tool),
            eq(toolConsents.principal, principal ?? ''),
          ),
        );
      return rows.length > 0;
    },
    async grant(conversationId, tool, grantedBy, principal) {
      await db
        .insert(toolConsents)
        .values({ conversationId, tool, principal: principal ?? '', grantedBy, createdAt: clock.now() })
        .onConflictDoNothing();
    },
  };
}
