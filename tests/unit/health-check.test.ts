import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, type Db } from '../../src/db/client.js';
import * as schema from '../../src/db/schema.js';
import { checkHealth } from '../../src/metrics/health-check.js';
import { databaseWriteProblem } from '../../src/store/sqlite/database-writable.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function freshDb(): { db: Db; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'errand-health-'));
  dirs.push(dir);
  const path = join(dir, 'errand.db');
  return { db: openDatabase(path), path };
}

/** The probe the SQLite store gives the health check, over a given connection. */
const probeOf = (db: Db) => ({ writeProblem: async () => databaseWriteProblem(db) });

const adapter = (platform: string, state: { connected: boolean; detail?: string; gateway?: 'held' | 'standby' }) => ({
  platform,
  connectionState: () => state,
});

describe('health check', () => {
  it('is ok when the database takes writes and every platform is connected', async () => {
    const { db } = freshDb();
    const report = await checkHealth({
      database: probeOf(db),
      adapters: new Map([
        ['slack', adapter('slack', { connected: true })],
        ['memory', adapter('memory', { connected: true })],
      ]),
    });
    expect(report).toEqual({
      status: 'ok',
      problems: [],
      database: { writable: true },
      platforms: { slack: { connected: true }, memory: { connected: true } },
    });
    closeDatabase(db);
  });

  it('shows whether this process holds the shared gateway; a standby is healthy', async () => {
    const { db } = freshDb();
    const standby = await checkHealth({
      database: probeOf(db),
      adapters: new Map([['discord', adapter('discord', { connected: true, gateway: 'standby' })]]),
    });
    expect(standby).toMatchObject({ status: 'ok', platforms: { discord: { connected: true, gateway: 'standby' } } });
    const held = await checkHealth({
      database: probeOf(db),
      adapters: new Map([
        ['discord', adapter('discord', { connected: false, detail: 'gateway connecting', gateway: 'held' })],
      ]),
    });
    expect(held).toMatchObject({ status: 'unhealthy', platforms: { discord: { gateway: 'held' } } });
    closeDatabase(db);
  });

  it('names each platform that is not connected, with what it is doing', async () => {
    const { db } = freshDb();
    const report = await checkHealth({
      database: probeOf(db),
      adapters: new Map([
        ['slack', adapter('slack', { connected: false, detail: 'socket reconnecting' })],
        ['discord', adapter('discord', { connected: true })],
      ]),
    });
    expect(report.status).toBe('unhealthy');
    expect(report.problems).toEqual(['slack is not connected (socket reconnecting)']);
    closeDatabase(db);
  });

  it('is unhealthy when the database file can only be read', async () => {
    const { db, path } = freshDb();
    closeDatabase(db);
    const sqlite = new Database(path, { readonly: true });
    const readonly = Object.assign(drizzle(sqlite, { schema }), { $client: sqlite }) as Db;
    const report = await checkHealth({ database: probeOf(readonly), adapters: new Map() });
    expect(report.status).toBe('unhealthy');
    expect(report.database.writable).toBe(false);
    expect(report.problems[0]).toMatch(/^the database cannot be written \(SQLITE_READONLY/);
    expect(sqlite.inTransaction).toBe(false);
    sqlite.close();
  });

  it('writes nothing: the check leaves the database as it was', async () => {
    const { db } = freshDb();
    const before = db.$client.pragma('user_version', { simple: true });
    const changes = db.$client.prepare('select total_changes() as n').pluck();
    const n = changes.get();
    await checkHealth({ database: probeOf(db), adapters: new Map() });
    expect(db.$client.pragma('user_version', { simple: true })).toBe(before);
    expect(changes.get()).toBe(n);
    closeDatabase(db);
  });

  it('lists the MCP servers for information without making Errand unhealthy', async () => {
    const { db } = freshDb();
    const report = await checkHealth({
      database: probeOf(db),
      adapters: new Map(),
      toolServers: () => [{ name: 'github', state: 'failed', reason: 'exited with code 1' }],
    });
    expect(report.status).toBe('ok');
    expect(report.mcp).toEqual([{ name: 'github', state: 'failed', reason: 'exited with code 1' }]);
    closeDatabase(db);
  });
});
