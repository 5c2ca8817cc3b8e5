import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import type { OutboxStore } from '../outbox-store.js';
import type { Synchronous } from './synchronous.js';

type PreviewMethods = Pick<
  Synchronous<OutboxStore>,
  'addPreview' | 'setPreviewMessage' | 'previewProbe' | 'markNothingToRetract' | 'markStreamed' | 'retractPreviews'
>;

/**
 * The outbox's record of live answer previews on SQLite: one row per preview message (status
 * `preview`, written before its post leaves and given the message id when the platform answered),
 * settled with the answer it became, or turned into a pending `retract` row when its run was interrupted. Statements are prepared once; the preview index keeps the per-run lookups small.
 */
export function createSqliteOutboxPreviews(db: Db, clock: Clock): PreviewMethods {
  const c = db.$client;
  const insert = c.prepare(
    "insert into outbox (conversation_id, run_id, purpose, payload, status, platform_message_id, created_at) values (?, ?, 'answer', ?, 'preview', ?, ?)",
  );
  const posted = c.prepare(
    "update outbox set status = 'posted', platform_message_id = ?, posted_at = ?, error = null where id = ? and status = 'pending'",
  );
  const settle = c.prepare(
    "update outbox set status = 'posted', posted_at = ? where run_id = ? and status = 'preview'",
  );
  const retract = c.prepare(
    "update outbox set status = 'pending', purpose = 'retract', payload = ?, attempts = 0, not_before = 0 where run_id = ? and status = 'preview' returning conversation_id",
  );
  const setId = c.prepare('update outbox set platform_message_id = ? where id = ? and platform_message_id is null');
  const createdAt = c.prepare('select conversation_id, run_id, created_at from outbox where id = ?');
  const later = c.prepare(
    "select min(created_at) as at from outbox where conversation_id = ? and id > ? and (run_id is null or run_id != ? or purpose = 'note')",
  );
  const known = c.prepare(
    'select platform_message_id from outbox where conversation_id = ? and platform_message_id is not null and (created_at >= ? or posted_at >= ?)',
  );
  const nothing = c.prepare(
    "update outbox set status = 'posted', posted_at = ?, error = null where id = ? and status = 'pending'",
  );
  const markStreamed = c.transaction(
    (runId: string | null, rows: readonly { id: number; platformMessageId: string }[]) => {
      const now = clock.now();
      for (const r of rows) posted.run(r.platformMessageId, now, r.id);
      if (runId !== null) settle.run(now, runId);
    },
  );
  return {
    addPreview(conversationId, runId, platformMessageId) {
      return Number(
        insert.run(conversationId, runId, JSON.stringify({ text: '' }), platformMessageId, clock.now()).lastInsertRowid,
      );
    },
    setPreviewMessage(id, platformMessageId) {
      setId.run(platformMessageId, id);
    },
    previewProbe(id, marginMs) {
      const row = createdAt.get(id) as
        { conversation_id: string; run_id: string | null; created_at: number } | undefined;
      if (!row) return null;
      const from = row.created_at - marginMs;
      const ids = known.all(row.conversation_id, from, from) as { platform_message_id: string }[];
      const until = (later.get(row.conversation_id, id, row.run_id ?? '') as { at: number | null }).at;
      return { since: row.created_at, until, known: ids.map((r) => r.platform_message_id) };
    },
    markNothingToRetract(id) {
      nothing.run(clock.now(), id);
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
