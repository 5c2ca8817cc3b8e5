import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Every TypeScript file under `dir`, repo-relative. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Small files with one job: none in src/ or adapters/ is over 300 lines. The lines are Prettier's (120 columns):
 * CI checks the formatting first (`npm run format:check`), so a file cannot meet the cap with wide lines.
 */
describe('file size', () => {
  it('keeps every file of src/ and adapters/ at 300 lines or fewer', () => {
    const files = [...sources('src'), ...sources('adapters')];
    expect(files.length).toBeGreaterThan(300);
    const over = files
      .map((f) => ({ f, lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter((x) => x.lines > 300);
    expect(over, over.map((x) => `${x.f}: ${x.lines} lines`).join('\n')).toEqual([]);
  });
});
