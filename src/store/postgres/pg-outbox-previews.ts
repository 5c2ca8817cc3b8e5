import { and, eq } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import { outbox } from '../../db/pg-schema.js';
import type { OutboxStore } from '../../outbox/outbox-store.js';
import type { PgExecutor } from './pg-executor.js';

type PreviewMethods = Pick<OutboxStore, 'addPreview' | 'markStreamed' | 'retractPreviews'>;

/**
 * The outbox's record of live answer previews on PostgreSQL, as on SQLite: one row per preview message
 * (status `preview`), settled with the answer it became, or turned into a pending `retract` row when its
 * run was interrupted (by whichever process takes the run over). The preview index keeps the per-run
 * lookups small.
 */
export function createPgOutboxPreviews(db: PgExecutor, clock: Clock): PreviewMethods {
  return {
    async addPreview(conversationId, runId, platformMessageId) {
      const [row] = await db
        .insert(outbox)
        .values({ conversationId, runId, purpose: 'answer', payload: { text: '' }, status: 'preview', platformMessageId, createdAt: clock.now() })
        .returning({ id: outbox.id });
      return row!.id;
    },
    async markStreamed(runId, rows) {
      await db.transaction(async (t) => {
        const now = clock.now();
        for (const r of rows) {
          await t
            .update(outbox)
            .set({ status: 'posted', platformMessageId: r.platformMessageId, postedAt: now, error: null })
            .where(and(eq(outbox.id, r.id), eq(outbox.status, 'pending')));
        }
        if (runId !== null) await t.update(outbox).set({ status: 'posted', postedAt: now }).where(and(eq(outbox.runId, runId), eq(outbox.status, 'preview')));
      });
    },
    async retractPreviews(runId, mark) {
      const rows = await db
        .update(outbox)
        .set({ status: 'pending', purpose: 'retract', payload: { text: mark }, attempts: 0, notBefore: 0 })
        .where(and(eq(outbox.runId, runId), eq(outbox.status, 'preview')))
        .returning({ conversationId: outbox.conversationId });
      return [...new Set(rows.map((r) => r.conversationId))];
    },
  };
}
