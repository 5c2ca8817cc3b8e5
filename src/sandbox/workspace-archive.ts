import { extract, pack } from 'tar-stream';

/** A file of a workspace as the sandbox gets and gives it: its path under `/workspace`, bytes and time. */
export interface ArchivedFile {
  readonly path: string;
  readonly bytes: Buffer;
  /** Milliseconds since the epoch (kept to the second, as tar keeps it). */
  readonly mtime: number;
}

/** The folders every workspace has, even empty: attachments come in to `in/`, files to post go to `out/`. */
export const WORKSPACE_FOLDERS = ['in', 'out'] as const;

/**
 * A workspace path as stored: relative, `/`-separated, no `.` or `..` parts, no empty parts. Null for
 * anything else (an archive from the sandbox is the code's to shape, so every name is checked).
 */
export function normalWorkspacePath(name: string): string | null {
  const parts = name.replace(/^\.\//, '').split('/');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length === 0 || parts.some((p) => p === '' || p === '.' || p === '..')) return null;
  const path = parts.join('/');
  return path.length <= 1024 && !path.includes('\0') ? path : null;
}

async function collect(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c);
  return Buffer.concat(chunks);
}

/** The archive the sandbox unpacks into `/workspace`: the folders, then every file (mode 0644). */
export async function packWorkspace(files: readonly ArchivedFile[]): Promise<Buffer> {
  const p = pack();
  const done = collect(p as unknown as AsyncIterable<Buffer>);
  for (const dir of WORKSPACE_FOLDERS) p.entry({ name: `${dir}/`, type: 'directory', mode: 0o755 });
  for (const f of files)
    p.entry({ name: f.path, size: f.bytes.length, mode: 0o644, mtime: new Date(f.mtime) }, f.bytes);
  p.finalize();
  return done;
}

/**
 * The regular files of an archive the sandbox packed, by normalised path. Links, devices and folders are
 * skipped (a workspace keeps files only); a name that is not a clean relative path is skipped too.
 */
export async function unpackWorkspace(archive: Buffer): Promise<ArchivedFile[]> {
  const x = extract();
  const files: ArchivedFile[] = [];
  const reading = (async () => {
    for await (const entry of x) {
      const { header } = entry;
      const path =
        header.type === 'file' || header.type === 'contiguous-file' ? normalWorkspacePath(header.name) : null;
      const bytes = await collect(entry as unknown as AsyncIterable<Buffer>);
      if (path !== null) files.push({ path, bytes, mtime: header.mtime.getTime() });
    }
  })();
  x.end(archive);
  await reading;
  return files;
}
