import type { WorkspaceInputs } from '../../src/attachments/workspace-ports.js';

/**
 * An in-memory WorkspaceInputs with the port's rules: a file lands under `in/` with its name, a name taken
 * already gets a numeric suffix before its extension (`data.csv` → `data-1.csv`), and a workspace past its
 * quota refuses with a reason instead of throwing. Stands in for the sandbox's database-backed workspace.
 */
export class MemoryWorkspace implements WorkspaceInputs {
  /** Each conversation's files, by path under `/workspace` (`in/data.csv`). */
  readonly files = new Map<string, Map<string, Uint8Array>>();

  constructor(private readonly quotaBytes = 100 * 1000 * 1000) {}

  async addInput(
    conversationId: string,
    name: string,
    bytes: Uint8Array,
  ): Promise<{ ok: true; path: string } | { ok: false; reason: string }> {
    const files = this.files.get(conversationId) ?? new Map<string, Uint8Array>();
    const used = [...files.values()].reduce((n, b) => n + b.byteLength, 0);
    if (used + bytes.byteLength > this.quotaBytes) return { ok: false, reason: 'the workspace is full' };
    const dot = name.lastIndexOf('.');
    const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
    let path = `in/${name}`;
    for (let n = 1; files.has(path); n++) path = `in/${stem}-${n}${ext}`;
    files.set(path, bytes);
    this.files.set(conversationId, files);
    return { ok: true, path };
  }

  /** The paths of a conversation's files, in the order they came. */
  pathsOf(conversationId: string): string[] {
    return [...(this.files.get(conversationId)?.keys() ?? [])];
  }
}
