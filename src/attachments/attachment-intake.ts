import type { InboundAttachment } from '../chat/inbound.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { attachmentNotes, imagesOf, requestWithAttachments, requestWithUnreadAttachments } from './attachment-text.js';
import type { AttachmentTaskStore } from './attachment-task-store.js';
import { readAttachments, type AttachmentLimits, type AttachmentOutcome } from './read-attachments.js';
import {
  copyToWorkspace,
  downloadedOnce,
  workspaceSection,
  type AttachmentWorkspace,
  type WorkspaceCopy,
} from './workspace-copies.js';

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
  /**
   * Downloads and reads the files, writes them into the task and releases it; returns notes for the thread.
   * With a workspace, the files are also copied into the conversation's `/workspace/in/` first, and the request
   * says where they are.
   */
  read(
    taskId: number,
    request: string,
    attachments: readonly InboundAttachment[],
    conversationId: string,
  ): Promise<string[]>;
}

export interface AttachmentIntakeDeps {
  store: AttachmentTaskStore;
  limits: AttachmentLimits;
  clock: Clock;
  logger: Logger;
  /** A signal that aborts after `ms` (injected: a timer). */
  timeout(ms: number): AbortSignal;
  /** Where files are also kept as data for run_code (the sandbox wired and enabled); absent: they are only read. */
  workspace?: AttachmentWorkspace;
}

export function createAttachmentIntake(deps: AttachmentIntakeDeps): AttachmentIntake {
  return {
    unreadRequest: requestWithUnreadAttachments,
    hold(taskId, tx = deps.store) {
      return tx.hold(taskId, deps.clock.now() + ATTACHMENT_HOLD_MS);
    },
    async read(taskId, request, attachments, conversationId) {
      const signal = deps.timeout(ATTACHMENT_DOWNLOAD_MS);
      const files = deps.workspace ? attachments.map(downloadedOnce) : attachments;
      const [read, copies] = await Promise.all([
        readAttachments(files, deps.limits, signal, deps.logger),
        deps.workspace
          ? copyToWorkspace(files, conversationId, deps.workspace, signal, deps.logger)
          : Promise.resolve([]),
      ]);
      const outcomes = read.map((o, i) => pointedToWorkspace(o, copies[i]));
      const section = workspaceSection(copies);
      const text = requestWithAttachments(request, outcomes);
      if (!(await deps.store.fill(taskId, section === '' ? text : `${text}\n\n${section}`, imagesOf(outcomes)))) {
        deps.logger.warn({ taskId }, 'attachments were read after their task had started without them');
      }
      // A file that could not be read here but is in the workspace is not "lost": code can read it.
      return attachmentNotes(outcomes.filter((o, i) => !(o.kind === 'skipped' && copies[i]?.kind === 'copied')));
    },
  };
}

/** A file not read into the request but copied to the workspace: its placeholder says where it is instead. */
function pointedToWorkspace(outcome: AttachmentOutcome, copy: WorkspaceCopy | undefined): AttachmentOutcome {
  if (outcome.kind !== 'skipped' || copy?.kind !== 'copied') return outcome;
  return {
    ...outcome,
    placeholder: `${outcome.placeholder.replace(/\]$/, '')}; the file is at /workspace/${copy.path}]`,
  };
}
