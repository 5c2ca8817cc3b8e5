import type { Clock } from '../clock.js';
import { mimeTypeOf } from './mime-type.js';
import type { ArchivedFile } from './workspace-archive.js';
import type { OutputFile, WorkspaceInputs } from './workspace-ports.js';
import type { StoredWorkspaceFile, WorkspaceStore } from './workspace-store.js';

/** Where files the code wrote to `out/` go once posted: out of `out/`, so each is posted once. */
export const POSTED_FOLDER = 'posted';

/** What a call's end did to the workspace. */
export type CommitResult =
  | { readonly ok: true; readonly outputs: readonly OutputFile[]; readonly totalBytes: number }
  | { readonly ok: false; readonly reason: string; readonly totalBytes: number };

/** A conversation's workspace as one call sees it: materialised from the store, synced back at the end. */
export interface Workspaces extends WorkspaceInputs {
  /** The files a call starts with. */
  checkout(conversationId: string): Promise<readonly StoredWorkspaceFile[]>;
  /**
   * Keeps what the call left (`after`, the sandbox's `/workspace`) against what it started with: new and changed
   * files written, missing ones deleted, `out/` files moved to `posted/` and returned to be posted. Over the quota,
   * nothing of the call is kept.
   */
  commit(conversationId: string, before: readonly StoredWorkspaceFile[], after: readonly ArchivedFile[]): Promise<CommitResult>;
}

const MB = 1024 * 1024;

function megabytes(bytes: number): string {
  return `${(bytes / MB).toFixed(1)} MB`;
}

/** An attachment's name as a file name: no folders, no control characters, not empty. */
export function inputFileName(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? '';
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return clean === '' || clean === '.' || clean === '..' ? 'attachment' : clean.slice(0, 200);
}

/** The n-th name for a clash: `data.csv` → `data-1.csv`, `notes` → `notes-1`, `.env` → `.env-1`. */
export function suffixedName(name: string, n: number): string {
  if (n === 0) return name;
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)}-${n}${name.slice(dot)}` : `${name}-${n}`;
}

const MAX_CLASHES = 1000;

/** Workspaces over their store, with the quota of `sandbox.workspaceMb`; the clock dates uses (retention) and inputs. */
export function createWorkspaces(deps: { store: WorkspaceStore; quotaMb: number; clock: Clock }): Workspaces {
  const { store, clock } = deps;
  const quota = deps.quotaMb * MB;
  const overQuota = (total: number, what: string) =>
    `${what} would make the workspace ${megabytes(total)}, over its quota of ${deps.quotaMb} MB (sandbox.workspaceMb). Delete files you no longer need from /workspace, or write smaller ones.`;
  return {
    checkout: (conversationId) => store.files(conversationId),

    async commit(conversationId, before, after) {
      const outputs: OutputFile[] = [];
      const kept = new Map<string, ArchivedFile>();
      for (const f of after) {
        if (f.path.startsWith('out/')) {
          const name = f.path.slice('out/'.length);
          outputs.push({ name, bytes: f.bytes, mimeType: mimeTypeOf(name) });
        } else if (!kept.has(f.path)) kept.set(f.path, f);
      }
      outputs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      // An output replaces a posted file of the same name (the newer chart wins).
      for (const o of outputs) {
        const path = `${POSTED_FOLDER}/${o.name}`;
        const source = after.find((f) => f.path === `out/${o.name}`)!;
        kept.set(path, { path, bytes: source.bytes, mtime: source.mtime });
      }
      const totalBytes = [...kept.values()].reduce((n, f) => n + f.bytes.length, 0);
      if (totalBytes > quota) return { ok: false, reason: overQuota(totalBytes, 'What this call wrote'), totalBytes };
      const previous = new Map(before.map((f) => [f.path, f]));
      const upserts = [...kept.values()]
        .filter((f) => !previous.get(f.path)?.bytes.equals(f.bytes))
        .map((f) => ({ path: f.path, bytes: f.bytes, size: f.bytes.length, mtime: f.mtime }));
      const deletes = before.filter((f) => !kept.has(f.path)).map((f) => f.path);
      await store.apply(conversationId, { upserts, deletes }, clock.now());
      return { ok: true, outputs, totalBytes };
    },

    async addInput(conversationId, name, bytes) {
      const entries = await store.entries(conversationId);
      const total = entries.reduce((n, e) => n + e.size, 0) + bytes.length;
      if (total > quota) return { ok: false, reason: overQuota(total, `The attachment ${inputFileName(name)} (${megabytes(bytes.length)})`) };
      const file = inputFileName(name);
      const now = clock.now();
      for (let n = 0; n < MAX_CLASHES; n++) {
        const path = `in/${suffixedName(file, n)}`;
        if (entries.some((e) => e.path === path)) continue;
        if (await store.addIfAbsent(conversationId, { path, bytes: Buffer.from(bytes), size: bytes.length, mtime: now }, now)) return { ok: true, path };
      }
      return { ok: false, reason: `The workspace already holds ${MAX_CLASHES} files named like ${file} in in/; delete some first.` };
    },
  };
}
