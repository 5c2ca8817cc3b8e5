import { and, asc, eq } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import { messages, privateAnswerFiles, privateAnswers } from '../../db/pg-schema.js';
import type { PrivateAnswerStore } from '../../privacy/private-answer-store.js';
import type { PgExecutor } from './pg-executor.js';

/** Held answers on PostgreSQL, shared by every process; a choice is a compare-and-swap on `state`. */
export function createPgPrivateAnswerStore(db: PgExecutor, clock: Clock): PrivateAnswerStore {
  return {
    async hold(answer) {
      const [row] = await db
        .insert(privateAnswers)
        .values({ ...answer, state: 'held', createdAt: clock.now() })
        .returning({ id: privateAnswers.id });
      return row!.id;
    },
    async get(id) {
      const rows = await db.select().from(privateAnswers).where(eq(privateAnswers.id, id));
      return rows[0] ?? null;
    },
    async decide(id, choice, at) {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .update(privateAnswers)
          .set({ state: choice, decidedAt: at })
          .where(and(eq(privateAnswers.id, id), eq(privateAnswers.state, 'held')))
          .returning();
        if (!row) return false;
        if (choice === 'shared' && row.messageId !== null)
          await tx.update(messages).set({ privateTo: null }).where(eq(messages.id, row.messageId));
        return true;
      });
    },
    async holdFiles(id, files) {
      if (files.length === 0) return;
      await db.insert(privateAnswerFiles).values(
        files.map((f, position) => ({
          answerId: id,
          position,
          post: f.post,
          name: f.name,
          mimeType: f.mimeType,
          bytes: Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength),
        })),
      );
    },
    async filesOf(id) {
      const rows = await db
        .select()
        .from(privateAnswerFiles)
        .where(eq(privateAnswerFiles.answerId, id))
        .orderBy(asc(privateAnswerFiles.position));
      return rows.map((r) => ({ post: r.post, name: r.name, mimeType: r.mimeType, bytes: new Uint8Array(r.bytes) }));
    },
    async dropFiles(id) {
      await db.delete(privateAnswerFiles).where(eq(privateAnswerFiles.answerId, id));
    },
  };
}
