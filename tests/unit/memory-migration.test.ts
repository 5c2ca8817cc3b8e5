import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeDatabase, MIGRATIONS_DIR, openDatabase } from '../../src/db/client.js';
import { createSqliteStore } from '../../src/composition/sqlite-store.js';
import { FakeClock } from '../fakes/fake-clock.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the memory search index across migrations', () => {
  it('keeps memories stored under the first search index findable, per owner, after the owner-token migration', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'errand-memory-mig-'));
    dirs.push(dir);
    const journal = JSON.parse(readFileSync(join(MIGRATIONS_DIR, 'meta/_journal.json'), 'utf8')) as {
      entries: { tag: string }[];
    };
    const before = journal.entries.findIndex((e) => e.tag.endsWith('_memory_owner_search'));
    expect(before).toBeGreaterThan(0);
    const older = join(dir, 'migrations');
    cpSync(MIGRATIONS_DIR, older, { recursive: true });
    writeFileSync(
      join(older, 'meta/_journal.json'),
      JSON.stringify({ ...journal, entries: journal.entries.slice(0, before) }),
    );
    const path = join(dir, 'errand.db');
    const old = openDatabase(path, { migrationsDir: older });
    old.$client
      .prepare(
        "insert into memories (scope, subject, text, created_by, created_at) values ('me', 'slack:U1', 'Ana deploys on Fridays', 'slack:U1', 1), ('me', 'slack:U2', 'Bob deploys on Mondays', 'slack:U2', 2)",
      )
      .run();
    closeDatabase(old);

    const db = openDatabase(path);
    try {
      const store = createSqliteStore(db, new FakeClock());
      const ana = { person: 'slack:U1', channel: 'slack:T1:C1', workspace: 'slack:T1' };
      expect((await store.memory.search(ana, 'when does she deploy', 10)).map((m) => m.text)).toEqual([
        'Ana deploys on Fridays',
      ]);
      const added = await store.memory.remember({
        scope: 'me',
        subject: 'slack:U1',
        text: 'Ana deploys from the release branch',
        createdBy: 'slack:U1',
      });
      expect((await store.memory.search(ana, 'deploy', 10)).map((m) => m.id)).toContain(added.id);
      await store.memory.forget(added.id);
      expect((await store.memory.search(ana, 'deploy', 10)).map((m) => m.text)).toEqual(['Ana deploys on Fridays']);
    } finally {
      closeDatabase(db);
    }
  });
});
