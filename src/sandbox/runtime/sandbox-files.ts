import { createAttachmentIntake, type AttachmentIntake } from '../../attachments/attachment-intake.js';
import type { FileLimits } from '../../chat/file-posts.js';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Logger } from '../../logger.js';
import { createFilesOut, type FilesOutDeps } from '../../outbox/files-out.js';
import type { Outbox } from '../../outbox/outbox.js';
import type { FilesOut, WorkspaceInputs } from '../../attachments/workspace-ports.js';
import type { Store } from '../../store/store.js';

/*
 * The platform side of "files in and out" (DESIGN.md "Running code in a sandbox"), wired once: a run's output
 * files posted to its thread through the outbox (what run_code calls when a call ends), and people's files read
 * for the model and, with a workspace, copied into its `/workspace/in/`.
 */

/**
 * FilesOut over the outbox, with each platform's limits for files (its adapter's `files` capability's). The
 * outbox is asked for when a run posts, so the sandbox (set up before it) can be handed this at once.
 */
export function filesOutOver(deps: {
  outbox(): Outbox;
  filesOf(platform: string): { readonly limits: FileLimits } | null;
  readonly logger: Logger;
}): FilesOut {
  const posts: FilesOutDeps['posts'] = {
    atomically: (write) => deps.outbox().atomically(write),
    record: (...args) => deps.outbox().record(...args),
    recordFiles: (...args) => deps.outbox().recordFiles(...args),
    recordHeldFiles: (...args) => deps.outbox().recordHeldFiles(...args),
    delivered: (...args) => deps.outbox().delivered(...args),
    get store() {
      return deps.outbox().store;
    },
  };
  return createFilesOut({ posts, filesOf: deps.filesOf, logger: deps.logger.child({ part: 'files-out' }) });
}

/**
 * The attachment intake: files read for the model (OPENAI_VISION, ATTACHMENT_MAX_*), and copied into the
 * conversation's workspace when `workspace` is given (the sandbox available and enabled), up to its size.
 */
export function attachmentIntakeFor(deps: {
  readonly config: Config;
  readonly store: Store;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly workspace?: WorkspaceInputs | undefined;
}): AttachmentIntake {
  const { config } = deps;
  return createAttachmentIntake({
    store: deps.store.attachments,
    limits: {
      vision: config.OPENAI_VISION,
      maxImageMb: config.ATTACHMENT_MAX_IMAGE_MB,
      maxTextKb: config.ATTACHMENT_MAX_TEXT_KB,
    },
    clock: deps.clock,
    logger: deps.logger,
    timeout: (ms) => AbortSignal.timeout(ms),
    ...(deps.workspace
      ? { workspace: { inputs: deps.workspace, maxBytes: config.file.settings.sandbox.workspaceMb * 1000 * 1000 } }
      : {}),
  });
}
