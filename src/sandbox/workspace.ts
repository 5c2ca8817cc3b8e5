import type { Clock } from '../clock.js';
import { mimeTypeOf } from './mime-type.js';
import type { ArchivedFile } from './workspace-archive.js';
import type { OutputFile, WorkspaceInputs } from '../attachments/workspace-ports.js';
import type { StoredWorkspaceFile, WorkspaceEntry, WorkspaceFileKey, WorkspaceStore } from './workspace-store.js';

/** Where files the code wrote to `out/` go once posted: out of `out/`, so each is posted once. */
export const POSTED_FOLDER = 'posted';

/** What a call's end did to the workspace. */
export type CommitResult =
  | { readonly ok: true; readonly outputs: readonly OutputFile[]; readonly totalBytes: number }
  | { readonly ok: false; readonly reason: string; readonly totalBytes: number };

/**
 * A conversation's workspace as one person's call sees it (DESIGN.md "Private stays private in a shared thread"): the
 * public files, and the caller's own private ones in place of public ones of the same path; never anyone else's.
 */
export interface WorkspaceView {
  /** The files the call starts with. */
  readonly files: readonly StoredWorkspaceFile[];
  /** Whether any of `files` is private to the caller: the call then reads their private material. */
  readonly holdsPrivate: boolean;
  /** The people whose private files are in the workspace and not shown to this call. */
  readonly hiddenOwners: readonly string[];
}

/** A conversation's workspace as one call sees it: materialised from the store, synced back at the end. */
export interface Workspaces extends WorkspaceInputs {
  /** The files a call of `viewer` (the run's principal; null: nobody's private files) starts with. */
  checkout(conversationId: string, viewer?: string | null): Promise<WorkspaceView>;
  /**
   * Keeps what the call left (`after`, the sandbox's `/workspace`) against what it started with: new and changed
   * files written, missing ones deleted, `out/` files moved to `posted/` and returned to be posted. With `writer`
   * (a call of a run holding that person's private material) what it writes is private to them, a public file it
   * changed included (others keep the public one); a file private to the caller stays theirs. Over the quota (every
   * stored file counts, anyone's private ones too), nothing of the call is kept.
   */
  commit(
    conversationId: string,
    before: WorkspaceView,
    after: readonly ArchivedFile[],
    writer?: string | null,
  ): Promise<CommitResult>;
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

/** Where a stored file is kept, as one key: its owner (empty: public) and path. */
const keyOf = (owner: string | null | undefined, path: string) => `${owner ?? ''}\u0000${path}`;

/** The sizes of every stored file of the conversation, anyone's private ones included, by keyOf. */
async function storedSizes(store: WorkspaceStore, conversationId: string): Promise<Map<string, number>> {
  const [open, privates] = await Promise.all([store.entries(conversationId), store.privateEntries(conversationId)]);
  const sizes = new Map<string, number>();
  for (const e of [...open, ...privates] as WorkspaceEntry[]) sizes.set(keyOf(e.owner, e.path), e.size);
  return sizes;
}

/** Workspaces over their store, with the quota of `sandbox.workspaceMb`; the clock dates uses (retention) and inputs. */
export function createWorkspaces(deps: { store: WorkspaceStore; quotaMb: number; clock: Clock }): Workspaces {
  const { store, clock } = deps;
  const quota = deps.quotaMb * MB;
  const overQuota = (total: number, what: string, hidden = 0) =>
    `${what} would make the workspace ${megabytes(total)}, over its quota of ${deps.quotaMb} MB (sandbox.workspaceMb).${hidden > 0 ? ` ${megabytes(hidden)} of it are files private to other people, which this call cannot see.` : ''} Delete files you no longer need from /workspace, or write smaller ones.`;
  return {
    async checkout(conversationId, viewer = null) {
      const [stored, privates] = await Promise.all([
        viewer ? store.filesFor(conversationId, viewer) : store.files(conversationId),
        store.privateEntries(conversationId),
      ]);
      // The caller's own private file stands in for a public one of the same path.
      const byPath = new Map<string, StoredWorkspaceFile>();
      for (const f of stored) if (f.owner || !byPath.get(f.path)?.owner) byPath.set(f.path, f);
      const files = [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      const hiddenOwners = [...new Set(privates.map((e) => e.owner).filter((o): o is string => !!o && o !== viewer))];
      return { files, holdsPrivate: files.some((f) => !!f.owner), hiddenOwners };
    },

    async commit(conversationId, before, after, writer = null) {
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
      const previous = new Map(before.files.map((f) => [f.path, f]));
      // What a private call writes is its writer's; a file the caller had privately stays theirs.
      const ownerOf = (path: string) => writer ?? previous.get(path)?.owner ?? null;
      const upserts = [...kept.values()]
        .filter((f) => !previous.get(f.path)?.bytes.equals(f.bytes))
        .map((f) => ({
          path: f.path,
          bytes: f.bytes,
          size: f.bytes.length,
          mtime: f.mtime,
          ...(ownerOf(f.path) ? { owner: ownerOf(f.path) } : {}),
        }));
      const gone = before.files.filter((f) => !kept.has(f.path));
      const deletes = gone.filter((f) => !f.owner).map((f) => f.path);
      const privateDeletes: WorkspaceFileKey[] = gone
        .filter((f) => !!f.owner)
        .map((f) => ({ path: f.path, owner: f.owner! }));
      // The quota counts every stored file as it will be: anyone's private ones, and public ones the caller's shadow.
      const sizes = await storedSizes(store, conversationId);
      for (const f of gone) sizes.delete(keyOf(f.owner, f.path));
      for (const f of upserts) sizes.set(keyOf(f.owner, f.path), f.size);
      const totalBytes = [...sizes.values()].reduce((n, size) => n + size, 0);
      if (totalBytes > quota) {
        const hidden = [...sizes.entries()]
          .filter(([k]) => !k.startsWith('\u0000') && !(writer && k.startsWith(`${writer}\u0000`)))
          .reduce((n, [, size]) => n + size, 0);
        return { ok: false, reason: overQuota(totalBytes, 'What this call wrote', hidden), totalBytes };
      }
      await store.apply(
        conversationId,
        { upserts, deletes, ...(privateDeletes.length > 0 ? { privateDeletes } : {}) },
        clock.now(),
      );
      return { ok: true, outputs, totalBytes };
    },

    async addInput(conversationId, name, bytes) {
      const [entries, privates] = await Promise.all([
        store.entries(conversationId),
        store.privateEntries(conversationId),
      ]);
      const total = [...entries, ...privates].reduce((n, e) => n + e.size, 0) + bytes.length;
      if (total > quota)
        return {
          ok: false,
          reason: overQuota(total, `The attachment ${inputFileName(name)} (${megabytes(bytes.length)})`),
        };
      const file = inputFileName(name);
      const now = clock.now();
      for (let n = 0; n < MAX_CLASHES; n++) {
        const path = `in/${suffixedName(file, n)}`;
        // A name someone holds privately is taken too: their private file would stand in for this one in their calls.
        if (entries.some((e) => e.path === path) || privates.some((e) => e.path === path)) continue;
        if (
          await store.addIfAbsent(
            conversationId,
            { path, bytes: Buffer.from(bytes), size: bytes.length, mtime: now },
            now,
          )
        )
          return { ok: true, path };
      }
      return {
        ok: false,
        reason: `The workspace already holds ${MAX_CLASHES} files named like ${file} in in/; delete some first.`,
      };
    },
  };
}
