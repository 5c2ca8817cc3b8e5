import { createHash } from 'node:crypto';
import type pg from 'pg';

/**
 * How many different statement texts get a name. Errand's statements are a few hundred texts; a text
 * that varies with its data (an `in (…)` list, a multi-row insert) adds one per length, and past this
 * bound new texts go unnamed, so neither this map nor any connection's set of prepared statements grows
 * without end.
 */
const MAX_NAMED = 1_000;

const names = new Map<string, string>();

/** The name of a statement text: a hash of it, the same in every process and on every connection. */
export function nameOf(text: string): string | undefined {
  const known = names.get(text);
  if (known !== undefined || names.size >= MAX_NAMED) return known;
  const name = `e${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
  names.set(text, name);
  return name;
}

type QueryFn = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/**
 * Makes every parameterised statement of a pooled connection a named (prepared) one: PostgreSQL parses
 * and analyses each text once per connection instead of at every execution, and may keep its plan;
 * node-postgres then sends only Bind and Execute. Statements without parameters (`begin`, `commit`) keep
 * the simple protocol. The statements themselves are unchanged: this is the connection's, not the caller's.
 */
export function nameStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as QueryFn;
  const named: QueryFn = (config, values, callback) => {
    if (typeof config === 'object' && config !== null && 'text' in config && !(config as { name?: unknown }).name) {
      const c = config as { text: unknown; values?: unknown };
      const params = Array.isArray(values) ? values : c.values;
      if (typeof c.text === 'string' && Array.isArray(params) && params.length > 0) {
        const name = nameOf(c.text);
        if (name !== undefined) return query({ ...c, name }, values, callback);
      }
    }
    return query(config, values, callback);
  };
  (client as unknown as { query: QueryFn }).query = named;
}
