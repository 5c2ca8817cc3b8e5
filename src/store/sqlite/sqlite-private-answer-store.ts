import { and, asc, eq } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import { messages, privateAnswerFiles, privateAnswers } from '../../db/schema.js';
import type { PrivateAnswerStore } from '../../privacy/private-answer-store.js';
import type { Synchronous } from './synchronous.js';

/** Held answers on SQLite; a choice and the transcript row it makes public are one transaction. */
export function createSqlitePrivateAnswerStore(db: Db, clock: Clock): Synchronous<PrivateAnswerStore> {
  return {
    hold(answer) {
      return db
        .insert(privateAnswers)
        .values({ ...answer, state: 'held', createdAt: clock.now() })
        .returning({ id: privateAnswers.id })
        .get().id;
    },
    get(id) {
      return db.select().from(privateAnswers).where(eq(privateAnswers.id, id)).get() ?? null;
    },
    decide(id, choice, at) {
      return db.transaction((tx) => {
        const row = tx
          .update(privateAnswers)
          .set({ state: choice, decidedAt: at })
          .where(and(eq(privateAnswers.id, id), eq(privateAnswers.state, 'held')))
          .returning()
          .get();
        if (!row) return false;
        if (choice === 'shared' && row.messageId !== null)
          tx.update(messages).set({ privateTo: null }).where(eq(messages.id, row.messageId)).run();
        return true;
      });
    },
    holdFiles(id, files) {
      files.forEach((f, position) =>
        db
          .insert(privateAnswerFiles)
          .values({
            answerId: id,
            position,
            post: f.post,
            name: f.name,
            mimeType: f.mimeType,
            bytes: Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength),
          })
          .run(),
      );
    },
    filesOf(id) {
      const rows = db
        .select()
        .from(privateAnswerFiles)
        .where(eq(privateAnswerFiles.answerId, id))
        .orderBy(asc(privateAnswerFiles.position))
        .all();
      return rows.map((r) => ({ post: r.post, name: r.name, mimeType: r.mimeType, bytes: new Uint8Array(r.bytes) }));
    },
    dropFiles(id) {
      db.delete(privateAnswerFiles).where(eq(privateAnswerFiles.answerId, id)).run();
    },
  };
}
