import type { ConversationRef } from '../chat/conversation-ref.js';

/**
 * The seam between the two halves of "Running code in a sandbox" (DESIGN.md): the workspace (its files kept for
 * a conversation, every process reaching them) and the platforms (attachments coming in, files going out).
 * Both sides are injected, so the sandbox knows no platform and the adapters know no sandbox.
 */

/** A file of a conversation's workspace, by its path under `/workspace` (`in/data.csv`, `out/chart.png`). */
export interface WorkspaceFile {
  readonly path: string;
  readonly bytes: Uint8Array;
}

/** Where attachments land: a person's file becomes `/workspace/in/<name>` of their conversation. */
export interface WorkspaceInputs {
  /**
   * Stores an attached file under `in/`, keeping its name; a name already taken gets a numeric suffix
   * (`data.csv` → `data-1.csv`). Returns the path it got (`in/data-1.csv`), or a reason it was refused (the
   * workspace's quota), never throwing for that.
   */
  addInput(
    conversationId: string,
    name: string,
    bytes: Uint8Array,
  ): Promise<{ readonly ok: true; readonly path: string } | { readonly ok: false; readonly reason: string }>;
}

/** A file the code wrote to `/workspace/out/`, to be posted to the thread. */
export interface OutputFile {
  /** The file's name as posted (its path under `out/`, with `/` kept for nested files). */
  readonly name: string;
  readonly bytes: Uint8Array;
  /** From the name's extension; `image/png` and the other image types are shown inline where the platform can. */
  readonly mimeType: string;
}

/** What became of each output file: posted, or not, with the reason (too big for the platform). */
export type PostedFile =
  | { readonly name: string; readonly posted: true }
  | { readonly name: string; readonly posted: false; readonly reason: string };

/**
 * Posts a run's output files to its conversation, durably (through the outbox: once, in order with the run's
 * other posts, across restarts). Resolves once the platform has them, like `send_update` (the run's next answer
 * may stream straight onto the platform and must show after them), or once they are recorded to be posted after
 * a restart when Errand is stopping; a file the platform refuses is `posted: false` with the reason, never thrown.
 */
export interface FilesOut {
  /**
   * `signal` (the run's): once aborted, it stops waiting for the platform; what is recorded is still posted.
   * `heldFor`: the files came from that person's private material in a conversation others read (DESIGN.md "Private
   * stays private in a shared thread"): shown to them alone first, posted in the thread only when they share them.
   */
  postFiles(
    conversation: ConversationRef,
    runId: string,
    files: readonly OutputFile[],
    signal?: AbortSignal,
    heldFor?: string | null,
  ): Promise<readonly PostedFile[]>;
}
