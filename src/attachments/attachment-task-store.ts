import type { ImagePart } from '../db/schema.js';

/** The two writes that keep a request's task waiting for its files and then give them to it. */
export interface AttachmentTaskStore {
  /** Keeps a pending task from starting before `until` (its files are being read). */
  hold(taskId: number, until: number): Promise<void>;
  /**
   * Gives a still-pending task its read request text and images and lets it start now. False when
   * the task already started (the hold ran out) or is gone: then nothing is written.
   */
  fill(taskId: number, description: string, images: readonly ImagePart[]): Promise<boolean>;
}
