import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { openDatabase } from '../db/client.js';
import { createSqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

/**
 * Opens the store the configuration names: today the SQLite file at DATABASE_PATH (created and
 * migrated on first use). The store owns the connection: `close()` closes it.
 */
export async function openStore(config: Pick<Config, 'DATABASE_PATH'>, clock: Clock): Promise<Store> {
  return createSqliteStore(openDatabase(config.DATABASE_PATH), clock, { ownsDb: true });
}
