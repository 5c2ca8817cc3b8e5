import { and, asc, eq, sql } from 'drizzle-orm';
import { outboxFiles } from '../../db/pg-schema.js';
import type { OutboxFileStore } from '../outbox-file-store.js';
import type { PgExecutor } from './pg-executor.js';

/** The outbox's file bytes on PostgreSQL: `bytea` beside their row, reachable from every process. */
export function createPgOutboxFileStore(db: PgExecutor): OutboxFileStore {
  return {
    async add(outboxId, files) {
      if (files.length === 0) return;
      await db.insert(outboxFiles).values(
        files.map((f, position) => ({
          outboxId,
          position,
          name: f.name,
          mimeType: f.mimeType,
          bytes: Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength),
        })),
      );
    },
    async filesOf(outboxId) {
      const rows = await db
        .select()
        .from(outboxFiles)
        .where(eq(outboxFiles.outboxId, outboxId))
        .orderBy(asc(outboxFiles.position));
      return rows.map((r) => ({
        name: r.name,
        mimeType: r.mimeType,
        bytes: new Uint8Array(r.bytes),
        stagedId: r.stagedId,
      }));
    },
    async setStaged(outboxId, ids) {
      for (const [position, id] of ids.entries()) {
        await db
          .update(outboxFiles)
          .set({ stagedId: id })
          .where(and(eq(outboxFiles.outboxId, outboxId), eq(outboxFiles.position, position)));
      }
    },
    async release(outboxId) {
      await db.delete(outboxFiles).where(eq(outboxFiles.outboxId, outboxId));
    },
    async releaseSettled() {
      // Written out by hand: drizzle drops the table name of a correlated subquery's column.
      const gone = await db
        .delete(outboxFiles)
        .where(
          sql`not exists (select 1 from outbox o where o.id = "outbox_files"."outbox_id" and o.status = 'pending')`,
        )
        .returning({ id: outboxFiles.outboxId });
      return gone.length;
    },
  };
}
