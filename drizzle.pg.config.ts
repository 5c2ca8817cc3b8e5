import { defineConfig } from 'drizzle-kit';

/** PostgreSQL migrations (DATABASE_URL), generated beside SQLite's: `npx drizzle-kit generate --config drizzle.pg.config.ts`. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/pg-schema.ts',
  out: './drizzle-pg',
});
