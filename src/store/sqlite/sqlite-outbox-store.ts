import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import type { OutboxStatus } from '../../db/schema.js';
import { outboxPayloadSchema, outboxPurposeSchema, type OutboxStore } from '../outbox-store.js';
import { createSqliteOutboxClaims } from './sqlite-outbox-claims.js';
import { createSqliteOutboxPreviews } from './sqlite-outbox-previews.js';
import type { Synchronous } from './synchronous.js';

interface RawRow {
  id: number;
  conversation_id: string;
  run_id: string | null;
  purpose: string;
  payload: string;
  attempts: number;
  not_before: number;
}

/**
 * The outbox on SQLite: prepared statements, payloads read back through the zod schema. Every preview is
 * this process's own (one process owns the file), so no row's run runs elsewhere.
 */
export function createSqliteOutboxStore(db: Db, clock: Clock): Synchronous<OutboxStore> {
  const c = db.$client;
  const insert = c.prepare(
    "insert into outbox (conversation_id, run_id, purpose, payload, status, created_at) values (?, ?, ?, ?, 'pending', ?)",
  );
  const next = c.prepare(
    "select id, conversation_id, run_id, purpose, payload, attempts, not_before from outbox where conversation_id = ? and status = 'pending' order by purpose = 'retract' desc, id limit 1",
  );
  const conversations = c.prepare("select distinct conversation_id from outbox where status = 'pending'");
  const attempt = c.prepare('update outbox set attempts = attempts + 1 where id = ?');
  const posted = c.prepare(
    "update outbox set status = 'posted', platform_message_id = ?, posted_at = ?, error = null where id = ? and status = 'pending'",
  );
  const failed = c.prepare("update outbox set status = 'failed', error = ? where id = ? and status = 'pending'");
  const failAll = c.prepare(
    "update outbox set status = 'failed', error = ? where conversation_id = ? and status = 'pending' returning id",
  );
  const dropUnsent = c.prepare(
    "update outbox set status = 'failed', error = 'stopped before it was posted' where run_id = ? and status = 'pending' and purpose in ('answer', 'update') returning id",
  );
  const defer = c.prepare("update outbox set not_before = ?, error = ? where id = ? and status = 'pending'");
  const state = c.prepare('select status, platform_message_id, conversation_id from outbox where id = ?');
  const prune = c.prepare("delete from outbox where status != 'pending' and created_at < ?");
  return {
    sharedWithOtherProcesses: false,
    add(conversationId, runId, purpose, pieces) {
      const now = clock.now();
      return pieces.map((p) =>
        Number(insert.run(conversationId, runId, purpose, JSON.stringify(p), now).lastInsertRowid),
      );
    },
    nextPending(conversationId) {
      const raw = next.get(conversationId) as RawRow | undefined;
      if (!raw) return null;
      let json: unknown = null;
      try {
        json = JSON.parse(raw.payload);
      } catch {
        // handled below as an unreadable payload
      }
      const payload = outboxPayloadSchema.safeParse(json);
      const purpose = outboxPurposeSchema.safeParse(raw.purpose);
      if (!payload.success || !purpose.success) {
        failed.run('unreadable payload', raw.id);
        return this.nextPending(conversationId);
      }
      return {
        id: raw.id,
        conversationId: raw.conversation_id,
        runId: raw.run_id,
        purpose: purpose.data,
        payload: payload.data,
        attempts: raw.attempts,
        notBefore: raw.not_before,
        runningElsewhere: false,
      };
    },
    pendingConversations() {
      return (conversations.all() as { conversation_id: string }[]).map((r) => r.conversation_id);
    },
    countAttempt(id) {
      attempt.run(id);
    },
    markPosted(id, platformMessageId) {
      return posted.run(platformMessageId, clock.now(), id).changes === 1;
    },
    markFailed(id, error) {
      failed.run(error, id);
    },
    failConversation(conversationId, error) {
      return (failAll.all(error, conversationId) as { id: number }[]).map((r) => r.id);
    },
    dropUnsent(runId) {
      return (dropUnsent.all(runId) as { id: number }[]).map((r) => r.id);
    },
    defer(id, notBefore, error) {
      defer.run(notBefore, error, id);
    },
    prune(before) {
      return prune.run(before).changes;
    },
    state(id) {
      const r = state.get(id) as
        { status: OutboxStatus; platform_message_id: string | null; conversation_id: string } | undefined;
      return r
        ? { status: r.status, platformMessageId: r.platform_message_id, conversationId: r.conversation_id }
        : null;
    },
    ...createSqliteOutboxClaims(),
    ...createSqliteOutboxPreviews(db, clock),
  };
}
