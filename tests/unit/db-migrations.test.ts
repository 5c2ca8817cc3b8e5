import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { closeDatabase, MIGRATIONS_DIR, openDatabase } from '../../src/db/client.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'errand-db-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function objects(path: string): { tables: string[]; indexes: string[] } {
  const db = new Database(path, { readonly: true });
  const rows = db.prepare("select type, name from sqlite_master where name not like 'sqlite_%'").all() as {
    type: string;
    name: string;
  }[];
  db.close();
  return {
    tables: rows
      .filter((r) => r.type === 'table')
      .map((r) => r.name)
      .sort(),
    indexes: rows
      .filter((r) => r.type === 'index')
      .map((r) => r.name)
      .sort(),
  };
}

interface Journal {
  entries: { idx: number; tag: string }[];
}

describe('database migrations', () => {
  it('create every table and the indexes the heartbeat and scheduler need on an empty database', () => {
    const path = join(tempDir(), 'errand.db');
    closeDatabase(openDatabase(path));
    const { tables, indexes } = objects(path);
    for (const t of ['conversations', 'messages', 'runs', 'tasks', 'schedules', 'processed_events']) {
      expect(tables).toContain(t);
    }
    for (const i of [
      'tasks_ready_idx',
      'runs_one_active_per_conversation',
      'runs_ask_expiry_idx',
      'schedules_due_idx',
    ]) {
      expect(indexes).toContain(i);
    }
  });

  it('are a no-op the second time and keep the data', () => {
    const path = join(tempDir(), 'errand.db');
    const first = openDatabase(path);
    first.$client
      .prepare(
        "insert into conversations (id, platform, workspace, channel, thread, created_at, updated_at) values ('console:local:c:-', 'console', 'local', 'c', null, 1, 1)",
      )
      .run();
    const applied = first.$client.prepare('select count(*) as n from __drizzle_migrations').get() as { n: number };
    closeDatabase(first);
    const second = openDatabase(path);
    const again = second.$client.prepare('select count(*) as n from __drizzle_migrations').get() as { n: number };
    const rows = second.$client.prepare('select count(*) as n from conversations').get() as { n: number };
    closeDatabase(second);
    expect(again.n).toBe(applied.n);
    expect(rows.n).toBe(1);
  });

  it('open with WAL, foreign keys, a busy timeout and temporary data in memory', () => {
    const db = openDatabase(join(tempDir(), 'errand.db'));
    expect(db.$client.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.$client.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.$client.pragma('busy_timeout', { simple: true })).toBe(5000);
    // 2 = MEMORY: statement journals never become files in /var/tmp.
    expect(db.$client.pragma('temp_store', { simple: true })).toBe(2);
    closeDatabase(db);
  });

  it('upgrade a database from every older migration level to the newest', () => {
    const journal = JSON.parse(readFileSync(join(MIGRATIONS_DIR, 'meta/_journal.json'), 'utf8')) as Journal;
    const newest = objects(
      (() => {
        const p = join(tempDir(), 'newest.db');
        closeDatabase(openDatabase(p));
        return p;
      })(),
    );
    for (let level = 0; level < journal.entries.length; level++) {
      const older = tempDir();
      cpSync(MIGRATIONS_DIR, older, { recursive: true });
      writeFileSync(
        join(older, 'meta/_journal.json'),
        JSON.stringify({ ...journal, entries: journal.entries.slice(0, level) }),
      );
      const path = join(tempDir(), `level-${level}.db`);
      closeDatabase(openDatabase(path, { migrationsDir: older }));
      const upgraded = openDatabase(path);
      const count = upgraded.$client.prepare('select count(*) as n from __drizzle_migrations').get() as { n: number };
      closeDatabase(upgraded);
      expect(count.n).toBe(journal.entries.length);
      expect(objects(path)).toEqual(newest);
    }
  });
});
