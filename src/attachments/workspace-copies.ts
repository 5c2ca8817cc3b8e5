import { formatBytes } from '../chat/byte-size.js';
import type { InboundAttachment } from '../chat/inbound.js';
import type { Logger } from '../logger.js';
import type { WorkspaceInputs } from './workspace-ports.js';

/** Where a conversation's attachments are also kept as data, for code to read (DESIGN.md "Running code in a sandbox"). */
export interface AttachmentWorkspace {
  readonly inputs: WorkspaceInputs;
  /** The largest file copied (the workspace's size: a bigger one could never fit), in bytes. */
  readonly maxBytes: number;
}

/** What became of one attachment: copied to `/workspace/<path>`, or not, with why. */
export type WorkspaceCopy =
  | { readonly kind: 'copied'; readonly name: string; readonly path: string; readonly size: number }
  | { readonly kind: 'refused'; readonly name: string; readonly reason: string };

/** The file's own name, without any folder a platform put in it, never empty. */
export function inputName(name: string): string {
  const base = (name.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return base === '' || base === '.' || base === '..' ? 'file' : base;
}

/**
 * Copies a message's files into its conversation's workspace (`in/<name>`, a taken name suffixed by the
 * workspace), one after the other so suffixes follow the message's order. Sizes are checked before the download
 * (from what the platform says) and on the bytes; a file that fails never stops the others.
 */
export async function copyToWorkspace(
  list: readonly InboundAttachment[],
  conversationId: string,
  workspace: AttachmentWorkspace,
  signal: AbortSignal,
  logger?: Logger,
): Promise<WorkspaceCopy[]> {
  const tooBig = `it is over the workspace's ${formatBytes(workspace.maxBytes)}`;
  const copies: WorkspaceCopy[] = [];
  for (const a of list) {
    const name = inputName(a.name);
    if (a.size > workspace.maxBytes) {
      copies.push({ kind: 'refused', name, reason: tooBig });
      continue;
    }
    let bytes: Uint8Array;
    try {
      bytes = await a.fetch(signal);
    } catch (err) {
      logger?.warn({ err, file: a.name }, 'downloading an attachment for the workspace failed');
      copies.push({ kind: 'refused', name, reason: 'downloading it failed' });
      continue;
    }
    if (bytes.byteLength > workspace.maxBytes) {
      copies.push({ kind: 'refused', name, reason: tooBig });
      continue;
    }
    try {
      const added = await workspace.inputs.addInput(conversationId, name, bytes);
      copies.push(
        added.ok
          ? { kind: 'copied', name, path: added.path, size: bytes.byteLength }
          : { kind: 'refused', name, reason: added.reason },
      );
    } catch (err) {
      logger?.warn({ err, file: a.name, conversationId }, 'copying an attachment into the workspace failed');
      copies.push({ kind: 'refused', name, reason: 'the workspace could not store it' });
    }
  }
  return copies;
}

/**
 * What the model is told of the copies, after the request: where the files are for code to read
 * ("Attached files are in /workspace/in/: data.csv (12 kB)"), and which could not be put there. Empty when none.
 */
export function workspaceSection(copies: readonly WorkspaceCopy[]): string {
  const copied = copies.flatMap((c) =>
    c.kind === 'copied' ? [`${c.path.replace(/^in\//, '')} (${formatBytes(c.size)})`] : [],
  );
  const refused = copies.flatMap((c) => (c.kind === 'refused' ? [`${c.name} (${c.reason})`] : []));
  const lines = [
    ...(copied.length > 0 ? [`Attached files are in /workspace/in/: ${copied.join(', ')}.`] : []),
    ...(refused.length > 0 ? [`Not copied to /workspace/in/: ${refused.join(', ')}.`] : []),
  ];
  return lines.join('\n');
}

/** One download per file, however many readers ask for its bytes (the model's reading and the workspace's copy). */
export function downloadedOnce(a: InboundAttachment): InboundAttachment {
  let bytes: Promise<Uint8Array> | null = null;
  return { name: a.name, mimeType: a.mimeType, size: a.size, fetch: (signal) => (bytes ??= a.fetch(signal)) };
}
