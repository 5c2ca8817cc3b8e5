import { and, asc, eq, inArray, lt, sql } from 'drizzle-orm';
import { privateWorkspaceFiles, workspaceFiles, workspaces } from '../../db/pg-schema.js';
import type { WorkspaceStore } from '../workspace-store.js';
import type { PgExecutor } from '../../store/postgres/pg-executor.js';

/**
 * Workspaces on PostgreSQL: files as `bytea` keyed by (conversation, path), so every process reads the same; files
 * private to one person in `private_workspace_files`, keyed by (conversation, owner, path).
 */
export function createPgWorkspaceStore(db: PgExecutor): WorkspaceStore {
  const touch = (tx: PgExecutor, conversationId: string, now: number) =>
    tx
      .insert(workspaces)
      .values({ conversationId, lastUsedAt: now })
      .onConflictDoUpdate({
        target: workspaces.conversationId,
        set: { lastUsedAt: sql`greatest(${workspaces.lastUsedAt}, excluded.last_used_at)` },
      });
  return {
    async files(conversationId) {
      return db
        .select({
          path: workspaceFiles.path,
          bytes: workspaceFiles.bytes,
          size: workspaceFiles.size,
          mtime: workspaceFiles.mtime,
        })
        .from(workspaceFiles)
        .where(eq(workspaceFiles.conversationId, conversationId))
        .orderBy(asc(workspaceFiles.path));
    },
    async filesFor(conversationId, viewer) {
      const columns = {
        path: privateWorkspaceFiles.path,
        bytes: privateWorkspaceFiles.bytes,
        size: privateWorkspaceFiles.size,
        mtime: privateWorkspaceFiles.mtime,
        owner: privateWorkspaceFiles.owner,
      };
      const [open, own] = await Promise.all([
        db
          .select({
            path: workspaceFiles.path,
            bytes: workspaceFiles.bytes,
            size: workspaceFiles.size,
            mtime: workspaceFiles.mtime,
          })
          .from(workspaceFiles)
          .where(eq(workspaceFiles.conversationId, conversationId))
          .orderBy(asc(workspaceFiles.path)),
        db
          .select(columns)
          .from(privateWorkspaceFiles)
          .where(and(eq(privateWorkspaceFiles.conversationId, conversationId), eq(privateWorkspaceFiles.owner, viewer)))
          .orderBy(asc(privateWorkspaceFiles.path)),
      ]);
      return [...open, ...own];
    },
    async privateEntries(conversationId) {
      return db
        .select({
          path: privateWorkspaceFiles.path,
          size: privateWorkspaceFiles.size,
          owner: privateWorkspaceFiles.owner,
        })
        .from(privateWorkspaceFiles)
        .where(eq(privateWorkspaceFiles.conversationId, conversationId))
        .orderBy(asc(privateWorkspaceFiles.owner), asc(privateWorkspaceFiles.path));
    },
    async entries(conversationId) {
      return db
        .select({ path: workspaceFiles.path, size: workspaceFiles.size })
        .from(workspaceFiles)
        .where(eq(workspaceFiles.conversationId, conversationId))
        .orderBy(asc(workspaceFiles.path));
    },
    async apply(conversationId, changes, now) {
      await db.transaction(async (tx) => {
        for (const f of changes.upserts) {
          if (f.owner) {
            const row = { conversationId, owner: f.owner, path: f.path, bytes: f.bytes, size: f.size, mtime: f.mtime };
            await tx
              .insert(privateWorkspaceFiles)
              .values(row)
              .onConflictDoUpdate({
                target: [privateWorkspaceFiles.conversationId, privateWorkspaceFiles.owner, privateWorkspaceFiles.path],
                set: { bytes: f.bytes, size: f.size, mtime: f.mtime },
              });
            continue;
          }
          await tx
            .insert(workspaceFiles)
            .values({ conversationId, path: f.path, bytes: f.bytes, size: f.size, mtime: f.mtime })
            .onConflictDoUpdate({
              target: [workspaceFiles.conversationId, workspaceFiles.path],
              set: { bytes: f.bytes, size: f.size, mtime: f.mtime },
            });
        }
        const publicDeletes = [
          ...changes.deletes,
          ...(changes.privateDeletes ?? []).filter((k) => !k.owner).map((k) => k.path),
        ];
        if (publicDeletes.length > 0)
          await tx
            .delete(workspaceFiles)
            .where(and(eq(workspaceFiles.conversationId, conversationId), inArray(workspaceFiles.path, publicDeletes)));
        for (const k of changes.privateDeletes ?? []) {
          if (k.owner)
            await tx
              .delete(privateWorkspaceFiles)
              .where(
                and(
                  eq(privateWorkspaceFiles.conversationId, conversationId),
                  eq(privateWorkspaceFiles.owner, k.owner),
                  eq(privateWorkspaceFiles.path, k.path),
                ),
              );
        }
        await touch(tx, conversationId, now);
      });
    },
    async addIfAbsent(conversationId, file, now) {
      return db.transaction(async (tx) => {
        const added = await tx
          .insert(workspaceFiles)
          .values({ conversationId, ...file })
          .onConflictDoNothing()
          .returning({ path: workspaceFiles.path });
        if (added.length > 0) await touch(tx, conversationId, now);
        return added.length > 0;
      });
    },
    async deleteIdleBefore(before, limit) {
      return db.transaction(async (tx) => {
        const idle = await tx
          .select({ id: workspaces.conversationId })
          .from(workspaces)
          .where(lt(workspaces.lastUsedAt, before))
          .orderBy(asc(workspaces.lastUsedAt))
          .limit(limit);
        const ids = idle.map((r) => r.id);
        if (ids.length === 0) return [];
        await tx.delete(workspaceFiles).where(inArray(workspaceFiles.conversationId, ids));
        await tx.delete(privateWorkspaceFiles).where(inArray(privateWorkspaceFiles.conversationId, ids));
        await tx.delete(workspaces).where(inArray(workspaces.conversationId, ids));
        return ids;
      });
    },
    async publish(conversationId, owner, files) {
      return db.transaction(async (tx) => {
        let made = 0;
        for (const f of files) {
          const bytes = Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength);
          const mine = and(
            eq(privateWorkspaceFiles.conversationId, conversationId),
            eq(privateWorkspaceFiles.owner, owner),
            eq(privateWorkspaceFiles.path, f.path),
          );
          const [row] = await tx
            .delete(privateWorkspaceFiles)
            .where(and(mine, eq(privateWorkspaceFiles.bytes, bytes)))
            .returning();
          if (!row) continue;
          await tx
            .insert(workspaceFiles)
            .values({ conversationId, path: row.path, bytes: row.bytes, size: row.size, mtime: row.mtime })
            .onConflictDoUpdate({
              target: [workspaceFiles.conversationId, workspaceFiles.path],
              set: { bytes: row.bytes, size: row.size, mtime: row.mtime },
            });
          made++;
        }
        return made;
      });
    },
  };
}
