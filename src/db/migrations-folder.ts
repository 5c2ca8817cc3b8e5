import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The nearest folder called `name` (with a drizzle-kit journal) above this file. Works from src/ (tsx)
 * and from the compiled dist/, and after a production install, which ships `drizzle/` and `drizzle-pg/`
 * beside `dist/`.
 */
export function findMigrationsFolder(name: 'drizzle' | 'drizzle-pg'): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = resolve(dir, name);
    if (existsSync(resolve(candidate, 'meta/_journal.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`Cannot find the ${name}/ migrations folder next to the Errand installation.`);
    dir = parent;
  }
}
