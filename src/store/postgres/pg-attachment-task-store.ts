import { and, eq } from 'drizzle-orm';
import type { AttachmentTaskStore } from '../../attachments/attachment-task-store.js';
import { tasks } from '../../db/pg-schema.js';
import type { PgExecutor } from './pg-executor.js';

/** Attachment holds on PostgreSQL: two conditional updates of the task row. */
export function createPgAttachmentTaskStore(db: PgExecutor): AttachmentTaskStore {
  return {
    async hold(taskId, until) {
      await db.update(tasks).set({ notBefore: until }).where(eq(tasks.id, taskId));
    },
    async fill(taskId, description, images) {
      const rows = await db
        .update(tasks)
        .set({ description, images: images.length > 0 ? [...images] : null, notBefore: 0 })
        .where(and(eq(tasks.id, taskId), eq(tasks.status, 'pending')))
        .returning({ id: tasks.id });
      return rows.length > 0;
    },
  };
}
