import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';

/** One entry of a skill's folder as it was pinned: a file with its own hash, or a symbolic link (recorded, never followed). */
export type SkillFileEntry =
  | {
      readonly path: string;
      readonly kind: 'file';
      readonly size: number;
      readonly executable: boolean;
      readonly sha256: string;
    }
  | { readonly path: string; readonly kind: 'link'; readonly target: string };

/** A folder's pin and what it covers, in the order the pin hashed it. */
export interface FolderDigest {
  /** `sha256:<64 hex>`: what `skills` in the configuration file and `/skills enable` record. */
  readonly pin: string;
  readonly entries: readonly SkillFileEntry[];
  readonly totalBytes: number;
}

/** What a skill's folder may hold, so a scan stays cheap and a stray checkout cannot stall start-up. */
export interface FolderLimits {
  readonly maxEntries: number;
  readonly maxTotalBytes: number;
  readonly maxDepth: number;
}

export const FOLDER_LIMITS: FolderLimits = { maxEntries: 1000, maxTotalBytes: 20 * 1024 * 1024, maxDepth: 12 };

/** A digest, with the bytes of the files asked to be kept (exactly the bytes hashed), or why the folder is refused. */
export type DigestResult =
  | { readonly ok: true; readonly digest: FolderDigest; readonly kept: ReadonlyMap<string, Buffer> }
  | { readonly ok: false; readonly reason: string };

class FolderRefused extends Error {}

/** Reads a regular file without following a link in its last component (a file swapped for a link is refused), with its mode. */
export async function readNoFollow(path: string): Promise<{ bytes: Buffer; mode: number }> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw Object.assign(new Error(`${path} is not a regular file`), { code: 'ENOTFILE' });
    return { bytes: await handle.readFile(), mode: stat.mode };
  } finally {
    await handle.close();
  }
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * The pin of a skill's folder: sha256 over a canonical walk — every folder, file and symbolic link by its path
 * relative to the folder (`/`-separated, sorted), each file's executable bit, size and bytes, each link's target
 * text. Links are recorded as they are and never followed, so nothing outside the folder is read or hashed; a
 * device, socket or pipe is refused. Any change of content, name, mode bit or link changes the pin.
 */
export async function digestFolder(
  dir: string,
  limits: FolderLimits = FOLDER_LIMITS,
  keep: (path: string) => boolean = () => false,
): Promise<DigestResult> {
  const found: { path: string; kind: 'dir' | 'file' | 'link' }[] = [];
  const tooBig = () =>
    new FolderRefused(`the folder holds more than ${Math.round(limits.maxTotalBytes / 1024 / 1024)} MB`);
  // Sizes as listed, so an oversized folder is refused before any of it is read.
  let listedBytes = 0;
  const walk = async (relative: string, depth: number): Promise<void> => {
    if (depth > limits.maxDepth)
      throw new FolderRefused(`folders are nested more than ${limits.maxDepth} deep (${relative})`);
    const names = (await readdir(join(dir, relative))).sort();
    for (const name of names) {
      const path = relative === '' ? name : `${relative}/${name}`;
      const stat = await lstat(join(dir, path));
      if (found.length >= limits.maxEntries)
        throw new FolderRefused(`the folder holds more than ${limits.maxEntries} files and folders`);
      if (stat.isSymbolicLink()) found.push({ path, kind: 'link' });
      else if (stat.isFile()) {
        listedBytes += stat.size;
        if (listedBytes > limits.maxTotalBytes) throw tooBig();
        found.push({ path, kind: 'file' });
      } else if (stat.isDirectory()) {
        found.push({ path, kind: 'dir' });
        await walk(path, depth + 1);
      } else throw new FolderRefused(`${path} is not a regular file, folder or symbolic link`);
    }
  };
  try {
    await walk('', 0);
    found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const hash = createHash('sha256');
    const entries: SkillFileEntry[] = [];
    const kept = new Map<string, Buffer>();
    let totalBytes = 0;
    for (const item of found) {
      const full = join(dir, item.path);
      if (item.kind === 'dir') {
        hash.update(`d\0${item.path}\0`);
      } else if (item.kind === 'link') {
        const target = await readlink(full);
        hash.update(`l\0${item.path}\0${target}\0`);
        entries.push({ path: item.path, kind: 'link', target });
      } else {
        const { bytes, mode } = await readNoFollow(full);
        totalBytes += bytes.length;
        if (totalBytes > limits.maxTotalBytes) throw tooBig();
        const executable = (mode & 0o111) !== 0;
        hash.update(`f\0${item.path}\0${executable ? 'x' : '-'}\0${bytes.length}\0`);
        hash.update(bytes);
        entries.push({ path: item.path, kind: 'file', size: bytes.length, executable, sha256: sha256(bytes) });
        if (keep(item.path)) kept.set(item.path, bytes);
      }
    }
    return { ok: true, digest: { pin: `sha256:${hash.digest('hex')}`, entries, totalBytes }, kept };
  } catch (err) {
    if (err instanceof FolderRefused) return { ok: false, reason: err.message };
    const code = (err as NodeJS.ErrnoException).code;
    return {
      ok: false,
      reason: `the folder could not be read (${code ?? (err instanceof Error ? err.message : String(err))}); it may have changed during the scan`,
    };
  }
}

/** The sha256 of some bytes as hex, as `SkillFileEntry.sha256` records a file's. */
export const sha256Hex = sha256;
