import { accessSync, constants, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DatabaseError } from '../errors.js';

/** Owner-only: the database holds every conversation and the logs quote them. */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

const FIX =
  'Set DATABASE_PATH to a file in a directory Errand may write (default ./data/errand.db), or fix the permissions.';

function describe(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : err instanceof Error ? err.message : String(err);
}

/**
 * Makes sure DATABASE_PATH can be used before anything writes there: creates the directory
 * (0700) and the file (0600) when missing, and checks both are writable. Fails with a message
 * that names the variable and the fix instead of a stack trace from deep inside SQLite or pino.
 * Existing directories and files keep their permissions.
 */
export function prepareDatabaseLocation(path: string): void {
  if (path === ':memory:') return;
  const file = resolve(path);
  const dir = dirname(file);
  try {
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  } catch (err) {
    throw new DatabaseError(`DATABASE_PATH=${path}: cannot create the directory ${dir} (${describe(err)}). ${FIX}`, {
      cause: err,
    });
  }
  if (!statSync(dir).isDirectory())
    throw new DatabaseError(`DATABASE_PATH=${path}: ${dir} is a file, not a directory. ${FIX}`);
  try {
    accessSync(dir, constants.W_OK);
  } catch (err) {
    throw new DatabaseError(
      `DATABASE_PATH=${path}: the directory ${dir} is not writable (${describe(err)}); SQLite needs to create its journal beside the file. ${FIX}`,
      { cause: err },
    );
  }
  try {
    if (!existsSync(file)) closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
    accessSync(file, constants.R_OK | constants.W_OK);
  } catch (err) {
    throw new DatabaseError(`DATABASE_PATH=${path}: cannot read and write ${file} (${describe(err)}). ${FIX}`, {
      cause: err,
    });
  }
}

/** Wraps a failure of SQLite itself (read-only file, not a database, disk full) with the variable to check. */
export function databaseOpenError(path: string, err: unknown): DatabaseError {
  const reason = err instanceof Error ? err.message : String(err);
  return new DatabaseError(`DATABASE_PATH=${path}: SQLite could not use the database (${reason}). ${FIX}`, {
    cause: err,
  });
}
