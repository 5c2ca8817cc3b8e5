import { and, eq } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import { messages, privateAnswers } from '../../db/schema.js';
import type { PrivateAnswerStore } from '../../privacy/private-answer-store.js';
import type { Synchronous } from './synchronous.js';

/** Held answers on SQLite; a choice and the transcript row it makes public are one transaction. */
export function createSqlitePrivateAnswerStore(db: Db, clock: Clock): Synchronous<PrivateAnswerStore> {
  return {
    hold(answer) {
      return db.insert(privateAnswers).values({ ...answer, state: 'held', createdAt: clock.now() }).returning({ id: privateAnswers.id }).get().id;
    },
    get(id) {
      return db.select().from(privateAnswers).where(eq(privateAnswers.id, id)).get() ?? null;
    },
    decide(id, choice, at) {
      return db.transaction((tx) => {
        const row = tx.update(privateAnswers).set({ state: choice, decidedAt: at }).where(and(eq(privateAnswers.id, id), eq(privateAnswers.state, 'held'))).returning().get();
        if (!row) return false;
        if (choice === 'shared' && row.messageId !== null) tx.update(messages).set({ privateTo: null }).where(eq(messages.id, row.messageId)).run();
        return true;
      });
    },
  };
}
