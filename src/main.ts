import { loadConfig, loadDotEnv } from './config.js';
import { ConfigError } from './errors.js';
import { createLogger } from './logger.js';
import { closeDatabase, openDatabase } from './db/client.js';

/**
 * Composition root: config → database → services → adapters → start, and the reverse on
 * SIGINT/SIGTERM. Everything with a side effect is created here and nowhere else.
 */
async function main(): Promise<void> {
  loadDotEnv();
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`Errand cannot start.\n${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(config.LOG_LEVEL);
  const db = openDatabase(config.DATABASE_PATH);
  logger.info({ database: config.DATABASE_PATH, platforms: config.platforms }, 'errand started');
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    closeDatabase(db);
    process.exit(0);
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

await main();
