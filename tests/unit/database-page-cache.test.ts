import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, PAGE_CACHE_KIB } from '../../src/db/client.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'errand-cache-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the SQLite connection', () => {
  it("keeps its page cache at 512 KiB, not better-sqlite3's 16 MB, so a busy hour does not stay in the idle RSS", () => {
    const db = openDatabase(join(dir, 'errand.db'));
    try {
      expect(PAGE_CACHE_KIB).toBe(512);
      expect(db.$client.pragma('cache_size', { simple: true })).toBe(-PAGE_CACHE_KIB);
    } finally {
      closeDatabase(db);
    }
  });
});
