import { mkdir, open } from 'node:fs/promises';
import { dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import type { FilePostCapability } from '../../src/chat/delivery.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';

/** What the console takes in one go: it writes files to the disk, so only the workspace's own size limits them. */
const CONSOLE_LIMITS = {
  maxFileBytes: 1000 * 1000 * 1000,
  maxFilesPerMessage: 100,
  maxMessageBytes: 10 * 1000 * 1000 * 1000,
} as const;

export interface ConsoleFilesDeps {
  /** Where posted files are saved (`./data/files` beside the database by default), one folder per conversation. */
  readonly dir: string;
  /** Prints the bot's message naming where the files are, and returns its id. */
  say(text: string): string;
}

/**
 * The console's way of posting files: each is saved under `<dir>/<conversation>/<name>` (a name taken already
 * gets `-1`, `-2`… before its extension, so nothing is overwritten) and the bot's message prints the paths.
 */
export function createConsoleFilePosts(deps: ConsoleFilesDeps): FilePostCapability {
  return {
    limits: CONSOLE_LIMITS,
    async postFiles(conversation, post) {
      const folder = resolve(deps.dir, folderOf(conversation));
      const lines: string[] = [];
      for (const file of post.files) {
        const path = await saveUnder(folder, safeRelativePath(file.name), file.bytes);
        lines.push(`📎 ${file.name}: saved to ${shown(path)}`);
      }
      return { id: deps.say(lines.join('\n')) };
    },
  };
}

/** A conversation's folder name: its thread (the console session), else its channel. */
function folderOf(ref: ConversationRef): string {
  return (ref.thread ?? ref.channel).replace(/[^A-Za-z0-9._-]/g, '_');
}

/** A name as a path that stays inside the folder: no `..`, no root, no empty parts. */
function safeRelativePath(name: string): string {
  const parts = name.split(/[\\/]/).filter((p) => p !== '' && p !== '.' && p !== '..');
  return parts.length > 0 ? join(...parts) : 'file';
}

/** Writes `bytes` to `folder/path`, or to the first free `name-n.ext` beside it; returns where. */
async function saveUnder(folder: string, path: string, bytes: Uint8Array): Promise<string> {
  const wanted = join(folder, path);
  await mkdir(dirname(wanted), { recursive: true });
  const ext = extname(wanted);
  const stem = wanted.slice(0, wanted.length - ext.length);
  for (let n = 0; ; n++) {
    const candidate = n === 0 ? wanted : `${stem}-${n}${ext}`;
    try {
      const handle = await open(candidate, 'wx', 0o600);
      try {
        await handle.writeFile(bytes);
      } finally {
        await handle.close();
      }
      return candidate;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** A saved path as printed: relative to the working directory when it is inside it. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}
