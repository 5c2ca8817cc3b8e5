import { describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase } from '../../src/db/client.js';
import { closePostgres, openPostgres } from '../../src/db/pg-client.js';
import type { SkillPinStore } from '../../src/skills/skill-pin-store.js';
import { createPostgresStore } from '../../src/composition/pg-store.js';
import { createSqliteStore } from '../../src/composition/sqlite-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { useTestDatabase } from '../support/test-database.js';

/** A fresh pair of pin stores on one empty database (`peer`: another process; SQLite's is the same store). */
type PinStoreFactory = () => Promise<{ store: SkillPinStore; peer: SkillPinStore; close(): Promise<void> }>;

const pin = (n: number) => `sha256:${String(n).padStart(64, '0')}`;

function skillPinStoreContract(name: string, factory: PinStoreFactory): void {
  describe(`${name}: the skill pin store`, () => {
    it('keeps one pin per skill with who approved it and when, replaced by a new approval and removed once', async () => {
      const { store, peer, close } = await factory();
      try {
        expect(await store.list()).toEqual([]);
        await store.save({ name: 'release-notes', pin: pin(1), enabledBy: 'slack:U1', enabledAt: 1_000 });
        await store.save({ name: 'bug-triage', pin: pin(2), enabledBy: 'discord:42', enabledAt: 2_000 });
        expect(await peer.list()).toEqual([
          { name: 'bug-triage', pin: pin(2), enabledBy: 'discord:42', enabledAt: 2_000 },
          { name: 'release-notes', pin: pin(1), enabledBy: 'slack:U1', enabledAt: 1_000 },
        ]);
        await peer.save({ name: 'release-notes', pin: pin(3), enabledBy: 'slack:U2', enabledAt: 3_000 });
        expect((await store.list()).find((p) => p.name === 'release-notes')).toEqual({
          name: 'release-notes',
          pin: pin(3),
          enabledBy: 'slack:U2',
          enabledAt: 3_000,
        });
        expect(await peer.remove('release-notes')).toBe(true);
        expect(await store.remove('release-notes')).toBe(false);
        expect((await store.list()).map((p) => p.name)).toEqual(['bug-triage']);
      } finally {
        await close();
      }
    });
  });
}

skillPinStoreContract('SQLite', async () => {
  const db = openDatabase(':memory:');
  const store = createSqliteStore(db, new FakeClock());
  return { store: store.skills, peer: store.skills, close: async () => closeDatabase(db) };
});

describe('SQLite: pins written in a transaction that rolls back', () => {
  it('are not listed afterwards (the kept copy follows the database)', async () => {
    const db = openDatabase(':memory:');
    const store = createSqliteStore(db, new FakeClock());
    try {
      expect(await store.skills.list()).toEqual([]);
      await expect(
        store.atomically(async (tx) => {
          await tx.skills.save({ name: 'release-notes', pin: pin(1), enabledBy: 'slack:U1', enabledAt: 1 });
          expect((await tx.skills.list()).map((p) => p.name)).toEqual(['release-notes']);
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect(await store.skills.list()).toEqual([]);
    } finally {
      closeDatabase(db);
    }
  });
});

const database = useTestDatabase();
describe.skipIf(database.skip)('PostgreSQL', () => {
  skillPinStoreContract('PostgreSQL', async () => {
    const clock = new FakeClock();
    const [a, b] = await Promise.all([
      openPostgres(database.url, { poolSize: 2 }),
      openPostgres(database.url, { poolSize: 2 }),
    ]);
    await a.$client.query('truncate skill_pins');
    return {
      store: createPostgresStore(a, clock).skills,
      peer: createPostgresStore(b, clock).skills,
      close: async () => {
        await Promise.all([closePostgres(a), closePostgres(b)]);
      },
    };
  });
});
