import { is } from 'drizzle-orm';
import { getTableConfig as pgTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import * as pgSchema from '../../src/db/pg-schema.js';
import * as sqliteSchema from '../../src/db/schema.js';

/** What PostgreSQL has beyond SQLite, for scale-out; anything else missing or extra is drift. */
const PG_ONLY_TABLES = ['channel_pacing', 'outbox_claims'];
const PG_ONLY_COLUMNS: Record<string, string[]> = { runs: ['owner', 'lease_until', 'lease_generation'] };
const PG_ONLY_INDEXES: Record<string, string[]> = { runs: ['runs_lease_idx'] };

interface Shape {
  columns: Record<string, { notNull: boolean; primary: boolean }>;
  indexes: Record<string, { unique: boolean; on: string[] }>;
  primaryKey: string[];
  foreignKeys: string[];
}

function shapeOf(config: ReturnType<typeof pgTableConfig> | ReturnType<typeof sqliteTableConfig>): Shape {
  const name = (c: unknown) => (c as { name: string }).name;
  return {
    columns: Object.fromEntries(config.columns.map((c) => [c.name, { notNull: c.notNull, primary: c.primary }])),
    indexes: Object.fromEntries(
      config.indexes.map((i) => [i.config.name, { unique: i.config.unique, on: i.config.columns.map(name) }]),
    ),
    primaryKey: config.primaryKeys.flatMap((pk) => pk.columns.map((c) => c.name)),
    foreignKeys: config.foreignKeys.map((fk) => {
      const ref = fk.reference();
      return `${ref.columns.map((c) => c.name).join(',')} -> ${ref.foreignColumns.map((c) => c.name).join(',')} on delete ${fk.onDelete ?? 'no action'}`;
    }),
  };
}

const sqliteTables = new Map(
  Object.values(sqliteSchema)
    .filter((t) => is(t, SQLiteTable))
    .map((t) => [sqliteTableConfig(t).name, shapeOf(sqliteTableConfig(t))]),
);
const pgTables = new Map(
  Object.values(pgSchema)
    .filter((t) => is(t, PgTable))
    .map((t) => [pgTableConfig(t).name, shapeOf(pgTableConfig(t))]),
);

function withoutPgOnly(table: string, shape: Shape): Shape {
  const columns = Object.fromEntries(
    Object.entries(shape.columns).filter(([c]) => !(PG_ONLY_COLUMNS[table] ?? []).includes(c)),
  );
  const indexes = Object.fromEntries(
    Object.entries(shape.indexes).filter(([i]) => !(PG_ONLY_INDEXES[table] ?? []).includes(i)),
  );
  return { ...shape, columns, indexes };
}

describe('the PostgreSQL schema', () => {
  it('has every SQLite table, and only the scale-out tables besides', () => {
    expect(sqliteTables.size).toBeGreaterThan(5);
    expect([...pgTables.keys()].sort()).toEqual([...sqliteTables.keys(), ...PG_ONLY_TABLES].sort());
  });

  it.each([...sqliteTables.keys()])('mirrors %s: columns, nullability, keys, indexes and foreign keys', (table) => {
    expect(withoutPgOnly(table, pgTables.get(table)!)).toEqual(sqliteTables.get(table));
  });
});
