import { and, asc, eq, inArray, lt, sql } from 'drizzle-orm';
import { workspaceFiles, workspaces } from '../../db/pg-schema.js';
import type { WorkspaceStore } from '../../sandbox/workspace-store.js';
import type { PgExecutor } from './pg-executor.js';

/** Workspaces on PostgreSQL: files as `bytea` keyed by (conversation, path), so every process reads the same. */
export function createPgWorkspaceStore(db: PgExecutor): WorkspaceStore {
  const touch = (tx: PgExecutor, conversationId: string, now: number) =>
    tx
      .insert(workspaces)
      .values({ conversationId, lastUsedAt: now })
      .onConflictDoUpdate({ target: workspaces.conversationId, set: { lastUsedAt: sql`greatest(${workspaces.lastUsedAt}, excluded.last_used_at)` } });
  return {
    async files(conversationId) {
      return db
        .select({ path: workspaceFiles.path, bytes: workspaceFiles.bytes, size: workspaceFiles.size, mtime: workspaceFiles.mtime })
        .from(workspaceFiles)
        .where(eq(workspaceFiles.conversationId, conversationId))
        .orderBy(asc(workspaceFiles.path));
    },
    async entries(conversationId) {
      return db.select({ path: workspaceFiles.path, size: workspaceFiles.size }).from(workspaceFiles).where(eq(workspaceFiles.conversationId, conversationId)).orderBy(asc(workspaceFiles.path));
    },
    async apply(conversationId, changes, now) {
      await db.transaction(async (tx) => {
        for (const f of changes.upserts) {
          await tx
            .insert(workspaceFiles)
            .values({ conversationId, path: f.path, bytes: f.bytes, size: f.size, mtime: f.mtime })
            .onConflictDoUpdate({ target: [workspaceFiles.conversationId, workspaceFiles.path], set: { bytes: f.bytes, size: f.size, mtime: f.mtime } });
        }
        if (changes.deletes.length > 0) await tx.delete(workspaceFiles).where(and(eq(workspaceFiles.conversationId, conversationId), inArray(workspaceFiles.path, [...changes.deletes])));
        await touch(tx, conversationId, now);
      });
    },
    async addIfAbsent(conversationId, file, now) {
      return db.transaction(async (tx) => {
        const added = await tx.insert(workspaceFiles).values({ conversationId, ...file }).onConflictDoNothing().returning({ path: workspaceFiles.path });
        if (added.length > 0) await touch(tx, conversationId, now);
        return added.length > 0;
      });
    },
    async deleteIdleBefore(before, limit) {
      return db.transaction(async (tx) => {
        const idle = await tx.select({ id: workspaces.conversationId }).from(workspaces).where(lt(workspaces.lastUsedAt, before)).orderBy(asc(workspaces.lastUsedAt)).limit(limit);
        const ids = idle.map((r) => r.id);
        if (ids.length === 0) return [];
        await tx.delete(workspaceFiles).where(inArray(workspaceFiles.conversationId, ids));
        await tx.delete(workspaces).where(inArray(workspaces.conversationId, ids));
        return ids;
      });
    },
  };
}
