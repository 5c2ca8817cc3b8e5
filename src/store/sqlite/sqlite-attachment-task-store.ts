import { and, eq } from 'drizzle-orm';
import type { AttachmentTaskStore } from '../../attachments/attachment-task-store.js';
import type { Db } from '../../db/client.js';
import { tasks } from '../../db/schema.js';
import type { Synchronous } from './synchronous.js';

/** Attachment holds on SQLite: two conditional updates of the task row. */

export function createSqliteAttachmentTaskStore(db: Db): Synchronous<AttachmentTaskStore> {
  return {
    hold(taskId, until) {
      db.update(tasks).set({ notBefore: until }).where(eq(tasks.id, taskId)).run();
    },
    fill(taskId, description, images) {
      const r = db
        .update(tasks)
        .set({ description, images: images.length > 0 ? [...images] : null, notBefore: 0 })
        .where(and(eq(tasks.id, taskId), eq(tasks.status, 'pending')))
        .run();
      return r.changes > 0;
    },
  };
}
