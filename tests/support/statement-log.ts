import type { PgDb } from '../../src/db/pg-client.js';

/**
 * Every statement text the pooled connections of the pools it watches send, lower-cased with its whitespace
 * folded: how the PostgreSQL statement suites (issue 40) read what a store call sends, off the connections
 * themselves.
 */
export interface StatementLog {
  /** The texts sent since the log was last emptied, in order; tests may empty or splice it. */
  readonly sent: string[];
  /** Records what `pool`'s connections send from now on (each connection wrapped once). */
  watch(pool: PgDb['$client']): void;
  /** What `work` sends (the log emptied first). */
  of(work: () => Promise<unknown>): Promise<string[]>;
}

export function statementLog(): StatementLog {
  const sent: string[] = [];
  const watched = new WeakSet<object>();
  return {
    sent,
    async of(work) {
      sent.length = 0;
      await work();
      return [...sent];
    },
    watch(pool) {
      pool.on('acquire', (client) => {
        if (watched.has(client)) return;
        watched.add(client);
        const query = client.query.bind(client) as (...args: unknown[]) => unknown;
        (client as unknown as { query: unknown }).query = (config: unknown, ...rest: unknown[]) => {
          const text = typeof config === 'string' ? config : (config as { text?: string }).text;
          if (typeof text === 'string') sent.push(text.replace(/\s+/g, ' ').trim().toLowerCase());
          return query(config, ...rest);
        };
      });
    },
  };
}
