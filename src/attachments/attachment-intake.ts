import type { InboundAttachment } from '../chat/inbound.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { attachmentNotes, imagesOf, requestWithAttachments, requestWithUnreadAttachments } from './attachment-text.js';
import type { AttachmentTaskStore } from './attachment-task-store.js';
import { readAttachments, type AttachmentLimits } from './read-attachments.js';

/** How long a new task waits for its files before it starts without them (the process stopped while reading). */
export const ATTACHMENT_HOLD_MS = 3 * 60_000;
/** Longest wait for one message's downloads. */
export const ATTACHMENT_DOWNLOAD_MS = 60_000;

/**
 * Reads the files of a person's request into its task. The dispatcher stores the task first (held,
 * with a request text that names the files as unread) so the platform is acknowledged at once; the
 * downloads follow, and the task gets the read text and images before it may start. The bytes then
 * live in the task and its goal message, so a restart loses nothing once they are read.
 */
export interface AttachmentIntake {
  /** The request text to store before reading. */
  unreadRequest(request: string, attachments: readonly InboundAttachment[]): string;
  /** Inside the storing transaction (pass its `tx` store): the task waits for `read`. */
  hold(taskId: number, tx?: AttachmentTaskStore): Promise<void>;
  /** Downloads and reads the files, writes them into the task and releases it; returns notes for the thread. */
  read(taskId: number, request: string, attachments: readonly InboundAttachment[]): Promise<string[]>;
}

export interface AttachmentIntakeDeps {
  store: AttachmentTaskStore;
  limits: AttachmentLimits;
  clock: Clock;
  logger: Logger;
  /** A signal that aborts after `ms` (injected: a timer). */
  timeout(ms: number): AbortSignal;
}

export function createAttachmentIntake(deps: AttachmentIntakeDeps): AttachmentIntake {
  return {
    unreadRequest: requestWithUnreadAttachments,
    hold(taskId, tx = deps.store) {
      return tx.hold(taskId, deps.clock.now() + ATTACHMENT_HOLD_MS);
    },
    async read(taskId, request, attachments) {
      const outcomes = await readAttachments(attachments, deps.limits, deps.timeout(ATTACHMENT_DOWNLOAD_MS), deps.logger);
      if (!(await deps.store.fill(taskId, requestWithAttachments(request, outcomes), imagesOf(outcomes)))) {
        deps.logger.warn({ taskId }, 'attachments were read after their task had started without them');
      }
      return attachmentNotes(outcomes);
    },
  };
}
