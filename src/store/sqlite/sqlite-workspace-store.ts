import type { Db } from '../../db/client.js';
import type { StoredWorkspaceFile, WorkspaceEntry, WorkspaceStore } from '../../sandbox/workspace-store.js';
import type { Synchronous } from './synchronous.js';

/** Workspaces on SQLite: files as blobs keyed by (conversation, path), one row per workspace for its last use. */
export function createSqliteWorkspaceStore(db: Db): Synchronous<WorkspaceStore> {
  const c = db.$client;
  const filesStmt = c.prepare<[string], StoredWorkspaceFile>('select path, bytes, size, mtime from workspace_files where conversation_id = ? order by path');
  const entriesStmt = c.prepare<[string], WorkspaceEntry>('select path, size from workspace_files where conversation_id = ? order by path');
  const upsertStmt = c.prepare(
    'insert into workspace_files (conversation_id, path, bytes, size, mtime) values (?, ?, ?, ?, ?) on conflict (conversation_id, path) do update set bytes = excluded.bytes, size = excluded.size, mtime = excluded.mtime',
  );
  const insertStmt = c.prepare('insert into workspace_files (conversation_id, path, bytes, size, mtime) values (?, ?, ?, ?, ?) on conflict do nothing');
  const deleteStmt = c.prepare('delete from workspace_files where conversation_id = ? and path = ?');
  const touchStmt = c.prepare('insert into workspaces (conversation_id, last_used_at) values (?, ?) on conflict (conversation_id) do update set last_used_at = max(last_used_at, excluded.last_used_at)');
  const idleStmt = c.prepare<[number, number], { conversation_id: string }>('select conversation_id from workspaces where last_used_at < ? order by last_used_at limit ?');
  const dropFilesStmt = c.prepare('delete from workspace_files where conversation_id = ?');
  const dropStmt = c.prepare('delete from workspaces where conversation_id = ?');
  const apply = c.transaction((conversationId: string, upserts: readonly StoredWorkspaceFile[], deletes: readonly string[], now: number) => {
    for (const f of upserts) upsertStmt.run(conversationId, f.path, f.bytes, f.size, f.mtime);
    for (const p of deletes) deleteStmt.run(conversationId, p);
    touchStmt.run(conversationId, now);
  });
  const add = c.transaction((conversationId: string, f: StoredWorkspaceFile, now: number) => {
    const added = insertStmt.run(conversationId, f.path, f.bytes, f.size, f.mtime).changes === 1;
    if (added) touchStmt.run(conversationId, now);
    return added;
  });
  const drop = c.transaction((ids: readonly string[]) => {
    for (const id of ids) {
      dropFilesStmt.run(id);
      dropStmt.run(id);
    }
  });
  return {
    files: (conversationId) => filesStmt.all(conversationId),
    entries: (conversationId) => entriesStmt.all(conversationId),
    apply: (conversationId, changes, now) => apply(conversationId, changes.upserts, changes.deletes, now),
    addIfAbsent: (conversationId, file, now) => add(conversationId, file, now),
    deleteIdleBefore(before, limit) {
      const ids = idleStmt.all(before, limit).map((r) => r.conversation_id);
      drop(ids);
      return ids;
    },
  };
}
