import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { tasks, type ImagePart } from '../db/schema.js';

/** The two writes that keep a request's task waiting for its files and then give them to it. */
export interface AttachmentTaskStore {
  /** Keeps a pending task from starting before `until` (its files are being read). */
  hold(taskId: number, until: number): void;
  /**
   * Gives a still-pending task its read request text and images and lets it start now. False when
   * the task already started (the hold ran out) or is gone: then nothing is written.
   */
  fill(taskId: number, description: string, images: readonly ImagePart[]): boolean;
}

export function createAttachmentTaskStore(db: Db): AttachmentTaskStore {
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
