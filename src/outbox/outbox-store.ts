import { z } from 'zod';
import type { PostPurpose } from '../agent/agent-types.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/client.js';
import type { OutboxPayload } from '../db/schema.js';

/** A pending outbox row as the poster reads it (payload validated). */
export interface PendingPost {
  readonly id: number;
  readonly conversationId: string;
  readonly runId: string | null;
  readonly purpose: PostPurpose;
  readonly payload: OutboxPayload;
  readonly attempts: number;
  readonly notBefore: number;
}

/** Persistence of the outbox table. Every method is synchronous, so callers can put it in a transaction. */
export interface OutboxStore {
  /** Inserts one pending row per piece, in order; returns their ids. */
  add(conversationId: string, runId: string | null, purpose: PostPurpose, pieces: readonly OutboxPayload[]): number[];
  /** The conversation's oldest pending row, or null. */
  nextPending(conversationId: string): PendingPost | null;
  /** Conversations that have pending rows. */
  pendingConversations(): string[];
  /** Counts a try before the platform is called, so a crash after it is known to need a look first. */
  countAttempt(id: number): void;
  /** Marks a row posted with its platform id; false when it was no longer pending. */
  markPosted(id: number, platformMessageId: string): boolean;
  /** Marks a row failed for good. */
  markFailed(id: number, error: string): void;
  /** Marks every pending row of a conversation failed (its place is gone); returns their ids. */
  failConversation(conversationId: string, error: string): number[];
  /** Leaves a row pending until `notBefore` (retry backoff). */
  defer(id: number, notBefore: number, error: string): void;
  /** A stopped run's answers and updates not posted yet: dropped (failed, `stopped`); returns their ids. */
  dropUnsent(runId: string): number[];
  /** Deletes posted and failed rows created before `before`; returns how many. */
  prune(before: number): number;
  /** A row's status and platform id; null when unknown. */
  state(id: number): { status: 'pending' | 'posted' | 'failed'; platformMessageId: string | null } | null;
}

const buttonSchema = z.object({ actionId: z.string(), label: z.string(), style: z.enum(['primary', 'danger']).optional() });
/** Stored JSON is read back through this schema: a row written by another version must not crash the poster. */
export const outboxPayloadSchema = z.object({ text: z.string(), mentionUserId: z.string().optional(), buttons: z.array(buttonSchema).optional() });
const purposeSchema = z.enum(['answer', 'update', 'question', 'approval', 'note']);

interface RawRow {
  id: number;
  conversation_id: string;
  run_id: string | null;
  purpose: string;
  payload: string;
  attempts: number;
  not_before: number;
}

export function createOutboxStore(db: Db, clock: Clock): OutboxStore {
  const c = db.$client;
  const insert = c.prepare("insert into outbox (conversation_id, run_id, purpose, payload, status, created_at) values (?, ?, ?, ?, 'pending', ?)");
  const next = c.prepare("select id, conversation_id, run_id, purpose, payload, attempts, not_before from outbox where conversation_id = ? and status = 'pending' order by id limit 1");
  const conversations = c.prepare("select distinct conversation_id from outbox where status = 'pending'");
  const attempt = c.prepare('update outbox set attempts = attempts + 1 where id = ?');
  const posted = c.prepare("update outbox set status = 'posted', platform_message_id = ?, posted_at = ?, error = null where id = ? and status = 'pending'");
  const failed = c.prepare("update outbox set status = 'failed', error = ? where id = ? and status = 'pending'");
  const failAll = c.prepare("update outbox set status = 'failed', error = ? where conversation_id = ? and status = 'pending' returning id");
  const dropUnsent = c.prepare("update outbox set status = 'failed', error = 'stopped before it was posted' where run_id = ? and status = 'pending' and purpose in ('answer', 'update') returning id");
  const defer = c.prepare("update outbox set not_before = ?, error = ? where id = ? and status = 'pending'");
  const state = c.prepare('select status, platform_message_id from outbox where id = ?');
  const prune = c.prepare("delete from outbox where status != 'pending' and created_at < ?");
  return {
    add(conversationId, runId, purpose, pieces) {
      const now = clock.now();
      return pieces.map((p) => Number(insert.run(conversationId, runId, purpose, JSON.stringify(p), now).lastInsertRowid));
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
      const purpose = purposeSchema.safeParse(raw.purpose);
      if (!payload.success || !purpose.success) {
        failed.run('unreadable payload', raw.id);
        return this.nextPending(conversationId);
      }
      return { id: raw.id, conversationId: raw.conversation_id, runId: raw.run_id, purpose: purpose.data, payload: payload.data, attempts: raw.attempts, notBefore: raw.not_before };
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
      const r = state.get(id) as { status: 'pending' | 'posted' | 'failed'; platform_message_id: string | null } | undefined;
      return r ? { status: r.status, platformMessageId: r.platform_message_id } : null;
    },
  };
}
