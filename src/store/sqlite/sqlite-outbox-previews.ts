import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import type { OutboxStore } from '../../outbox/outbox-store.js';
import type { Synchronous } from './synchronous.js';

type PreviewMethods = Pick<Synchronous<OutboxStore>, 'addPreview' | 'markStreamed' | 'retractPreviews'>;

/**
 * The outbox's record of live answer previews on SQLite: one row per preview message (status
 * `preview`), settled with the answer it became, or turned into a pending `retract` row when its run
 * was interrupted. Statements are prepared once; the preview index keeps the per-run lookups small.
 */
export function createSqliteOutboxPreviews(db: Db, clock: Clock): PreviewMethods {
  const c = db.$client;
  const insert = c.prepare("insert into outbox (conversation_id, run_id, purpose, payload, status, platform_message_id, created_at) values (?, ?, 'answer', ?, 'preview', ?, ?)");
  const posted = c.prepare("update outbox set status = 'posted', platform_message_id = ?, posted_at = ?, error = null where id = ? and status = 'pending'");
  const settle = c.prepare("update outbox set status = 'posted', posted_at = ? where run_id = ? and status = 'preview'");
  const retract = c.prepare(
    "update outbox set status = 'pending', purpose = 'retract', payload = ?, attempts = 0, not_before = 0 where run_id = ? and status = 'preview' returning conversation_id",
  );
  const markStreamed = c.transaction((runId: string | null, rows: readonly { id: number; platformMessageId: string }[]) => {
    const now = clock.now();
    for (const r of rows) posted.run(r.platformMessageId, now, r.id);
    if (runId !== null) settle.run(now, runId);
  });
  return {
    addPreview(conversationId, runId, platformMessageId) {
      return Number(insert.run(conversationId, runId, JSON.stringify({ text: '' }), platformMessageId, clock.now()).lastInsertRowid);
    },
    markStreamed(runId, rows) {
      markStreamed(runId, rows);
    },
    retractPreviews(runId, mark) {
      const rows = retract.all(JSON.stringify({ text: mark }), runId) as { conversation_id: string }[];
      return [...new Set(rows.map((r) => r.conversation_id))];
    },
  };
}
