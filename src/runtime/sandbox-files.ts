import { createAttachmentIntake, type AttachmentIntake } from '../attachments/attachment-intake.js';
import type { FilePostCapability } from '../chat/file-posts.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { createFilesOut } from '../outbox/files-out.js';
import type { Outbox } from '../outbox/outbox.js';
import type { FilesOut, WorkspaceInputs } from '../sandbox/workspace-ports.js';
import type { Store } from '../store/store.js';

export interface SandboxFilesDeps {
  readonly config: Config;
  readonly store: Store;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly outbox: Outbox;
  /** Each platform's way of posting files (its adapter's `files` capability); null where it has none. */
  filesOf(platform: string): FilePostCapability | null;
  /** The conversations' workspaces, where the sandbox is available and enabled; absent: attachments are only read. */
  readonly workspace?: WorkspaceInputs | undefined;
}

/**
 * The platform side of "files in and out" (DESIGN.md "Running code in a sandbox"), wired once: people's files
 * read for the model and, with a workspace, copied into its `/workspace/in/`; a run's output files posted to
 * its thread through the outbox (`filesOut`, which run_code calls when a call ends).
 */
export function wireSandboxFiles(deps: SandboxFilesDeps): { readonly attachments: AttachmentIntake; readonly filesOut: FilesOut } {
  const { config } = deps;
  const attachments = createAttachmentIntake({
    store: deps.store.attachments,
    limits: { vision: config.OPENAI_VISION, maxImageMb: config.ATTACHMENT_MAX_IMAGE_MB, maxTextKb: config.ATTACHMENT_MAX_TEXT_KB },
    clock: deps.clock,
    logger: deps.logger,
    timeout: (ms) => AbortSignal.timeout(ms),
    ...(deps.workspace ? { workspace: { inputs: deps.workspace, maxBytes: config.file.settings.sandbox.workspaceMb * 1000 * 1000 } } : {}),
  });
  const filesOut = createFilesOut({
    posts: deps.outbox,
    filesOf: deps.filesOf,
    logger: deps.logger.child({ part: 'files-out' }),
  });
  return { attachments, filesOut };
}
