import { DatabaseError } from '../errors.js';

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
]);
/** SQLSTATEs of a refused login: invalid_password, invalid_authorization_specification. */
const AUTH_FAILED = new Set(['28P01', '28000']);
const NO_SUCH_DATABASE = '3D000';
const INSUFFICIENT_PRIVILEGE = '42501';

/** DATABASE_URL with its password masked, fit for logs and error messages. */
export function redactDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

/** The socket error code or SQLSTATE of a node-postgres failure; AggregateError (IPv6 + IPv4 tries) gives its first. */
function codeOf(err: unknown): string | null {
  if (typeof err !== 'object' || err === null) return null;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  const inner = (err as { errors?: unknown }).errors;
  return Array.isArray(inner) && inner.length > 0 ? codeOf(inner[0]) : null;
}

/**
 * Checks DATABASE_URL before any connection is tried, so a typo gets a sentence instead of a stack trace
 * from the driver. Throws DatabaseError naming the variable.
 */
export function checkDatabaseUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (err) {
    throw new DatabaseError('DATABASE_URL is not a URL. Write it as postgres://user:password@host:5432/database.', {
      cause: err,
    });
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new DatabaseError(
      `DATABASE_URL must start with postgres:// or postgresql:// (got ${parsed.protocol}//). Leave it unset to use the SQLite file at DATABASE_PATH.`,
    );
  }
}

/**
 * Turns a failure to connect or migrate into a DatabaseError that names DATABASE_URL (password masked)
 * and says what to check: the server is unreachable, the login was refused, the database is missing, or
 * the user may not create the tables.
 */
export function postgresOpenError(url: string, err: unknown): DatabaseError {
  if (err instanceof DatabaseError) return err;
  const where = `DATABASE_URL=${redactDatabaseUrl(url)}`;
  const code = codeOf(err);
  const reason = err instanceof Error && err.message ? err.message : String(code ?? err);
  if (code !== null && UNREACHABLE.has(code)) {
    return new DatabaseError(
      `${where}: cannot reach the PostgreSQL server (${code}). Check that it is running and that the host and port in DATABASE_URL are right.`,
      { cause: err },
    );
  }
  if (code !== null && AUTH_FAILED.has(code)) {
    return new DatabaseError(
      `${where}: the server refused the login (${reason}). Fix the user name or password in DATABASE_URL.`,
      { cause: err },
    );
  }
  if (code === NO_SUCH_DATABASE) {
    return new DatabaseError(
      `${where}: the database does not exist (${reason}). Create it (createdb <name>) or fix the name in DATABASE_URL.`,
      { cause: err },
    );
  }
  if (code === INSUFFICIENT_PRIVILEGE) {
    return new DatabaseError(
      `${where}: the user may not create Errand's tables (${reason}). Grant it CREATE on the database, or use its owner in DATABASE_URL.`,
      { cause: err },
    );
  }
  return new DatabaseError(
    `${where}: PostgreSQL could not be used (${reason}). Check DATABASE_URL and the server's log.`,
    { cause: err },
  );
}
