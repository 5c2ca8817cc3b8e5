import type { Database, Statement } from 'better-sqlite3';

/** Distinct limits kept prepared per statement (callers pass a handful: slots free, history rows). */
const KEPT = 16;

/**
 * A statement ending in `limit ?`, prepared once per limit value with the number written in. SQLite
 * (built with STAT4, as better-sqlite3 is) re-prepares a statement whose LIMIT is a bound parameter on
 * every run, which made the reads asked after every message (expired questions, the transcript) cost a
 * parse and a query plan each time. `sql` holds `{limit}` where the number goes; `shape` sets raw/pluck.
 */
export function limitedStatement(
  db: Database,
  sql: string,
  shape: (s: Statement) => Statement = (s) => s,
): (limit: number) => Statement {
  const prepared = new Map<number, Statement>();
  return (limit) => {
    const n = Math.max(0, Math.floor(limit));
    let statement = prepared.get(n);
    if (!statement) {
      if (prepared.size >= KEPT) prepared.clear();
      statement = shape(db.prepare(sql.replace('{limit}', String(n))));
      prepared.set(n, statement);
    }
    return statement;
  };
}
