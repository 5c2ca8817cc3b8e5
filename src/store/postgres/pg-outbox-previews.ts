import { and, eq, gt, gte, isNotNull, isNull, min, ne, or, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import { outbox } from '../../db/pg-schema.js';
import type { OutboxStore } from '../outbox-store.js';
import type { PgExecutor } from './pg-executor.js';
import { deferrableText, prepared, preparedText } from './pg-prepared.js';

const P = sql.placeholder;
const addPreviewRow = prepared((d) =>
  d
    .insert(outbox)
    .values({
      conversationId: P('conversationId'),
      runId: P('runId'),
      purpose: 'answer',
      payload: sql`'{"text":""}'::jsonb`,
      status: 'preview',
      platformMessageId: P('platformMessageId'),
      createdAt: P('now'),
    })
    .returning({ id: outbox.id }),
);
/**
 * A preview row written only while the run's fence holds: the CTE locks the run's row (`for no key update`, as
 * `RunStore.holds`) until the statement's own commit, so a takeover either committed before it (no row
 * written) or waits for it. One statement where `holds` and the insert took a transaction of four.
 */
const addFencedPreviewRow = preparedText<{ id: string | number }>(
  `with fence as (select id from runs where id = $2::text and owner is not distinct from $3::text and lease_generation = $4::integer for no key update) ` +
    `insert into outbox (conversation_id, run_id, purpose, payload, status, created_at) ` +
    `select $1::text, fence.id, 'answer', '{"text":""}'::jsonb, 'preview', $5::bigint from fence returning id`,
);
/**
 * A preview's message id, once the platform answered with it. It waits for the process's next statement rather
 * than waking a backend alone (pg-deferred-writes.ts): a crash within that window (≤ its 20 ms, or until the next
 * statement under load) leaves the preview to be found by time and the known ids (`previewProbe`), as a crash
 * within the platform's own round trip always did.
 */
export const SET_PREVIEW_MESSAGE_SQL = `update outbox set platform_message_id = $2::text where id = $1::bigint and platform_message_id is null`;
const setPreviewMessageOf = deferrableText(SET_PREVIEW_MESSAGE_SQL);

/**
 * The streamed rows posted with their message ids (`$1` ids, `$2` message ids, paired by position) and the
 * run's previews (`$4`, null for none) with them, in one statement of one text whatever the number of rows, so
 * it is prepared once. The two sets are disjoint (pending rows, preview rows).
 */
export const MARK_STREAMED_SQL =
  `update outbox o set status = 'posted', ` +
  `platform_message_id = case when o.status = 'pending' then coalesce((select m.message_id from unnest($1::integer[], $2::text[]) as m(id, message_id) where m.id = o.id), o.platform_message_id) else o.platform_message_id end, ` +
  `posted_at = $3::bigint, error = case when o.status = 'pending' then null else o.error end ` +
  `where (o.id = any($1::integer[]) and o.status = 'pending') or (o.run_id = $4::text and o.status = 'preview')`;
const markStreamedRows = preparedText<never>(MARK_STREAMED_SQL);

type PreviewMethods = Pick<
  OutboxStore,
  | 'addPreview'
  | 'addFencedPreview'
  | 'setPreviewMessage'
  | 'previewProbe'
  | 'markNothingToRetract'
  | 'markStreamed'
  | 'retractPreviews'
>;

/**
 * The outbox's record of live answer previews on PostgreSQL, as on SQLite: one row per preview message
 * (status `preview`, written before its post leaves and given the message id when the platform
 * answered), settled with the answer it became, or turned into a pending `retract` row when its
 * run was interrupted (by whichever process takes the run over). The preview index keeps the per-run
 * lookups small.
 */
export function createPgOutboxPreviews(db: PgExecutor, clock: Clock): PreviewMethods {
  return {
    async addPreview(conversationId, runId, platformMessageId) {
      const [row] = await addPreviewRow(db, { conversationId, runId, platformMessageId, now: clock.now() });
      return row!.id;
    },
    async addFencedPreview(conversationId, fence) {
      const values = [conversationId, fence.runId, fence.owner, fence.generation, clock.now()];
      const [row] = await addFencedPreviewRow(db, values);
      return row ? Number(row.id) : null;
    },
    async setPreviewMessage(id, platformMessageId) {
      await setPreviewMessageOf(db, [id, platformMessageId]);
    },
    async previewProbe(id, marginMs) {
      const [row] = await db
        .select({ conversationId: outbox.conversationId, runId: outbox.runId, createdAt: outbox.createdAt })
        .from(outbox)
        .where(eq(outbox.id, id));
      if (!row) return null;
      const from = row.createdAt - marginMs;
      const ids = await db
        .select({ platformMessageId: outbox.platformMessageId })
        .from(outbox)
        .where(
          and(
            eq(outbox.conversationId, row.conversationId),
            isNotNull(outbox.platformMessageId),
            or(gte(outbox.createdAt, from), gte(outbox.postedAt, from)),
          ),
        );
      const notTheRunGoingOn = or(isNull(outbox.runId), ne(outbox.runId, row.runId ?? ''), eq(outbox.purpose, 'note'));
      const [later] = await db
        .select({ at: min(outbox.createdAt) })
        .from(outbox)
        .where(and(eq(outbox.conversationId, row.conversationId), gt(outbox.id, id), notTheRunGoingOn));
      return {
        since: row.createdAt,
        until: later?.at ?? null,
        known: ids.flatMap((r) => (r.platformMessageId === null ? [] : [r.platformMessageId])),
      };
    },
    async markNothingToRetract(id) {
      await db
        .update(outbox)
        .set({ status: 'posted', postedAt: clock.now(), error: null })
        .where(and(eq(outbox.id, id), eq(outbox.status, 'pending')));
    },
    async markStreamed(runId, rows) {
      // One statement, so atomic without a transaction: the streamed rows posted with their message ids, and
      // the run's previews with them.
      if (rows.length === 0 && runId === null) return;
      const ids = rows.map((r) => r.id);
      const messageIds = rows.map((r) => r.platformMessageId);
      await markStreamedRows(db, [ids, messageIds, clock.now(), runId]);
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
