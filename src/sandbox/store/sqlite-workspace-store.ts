import type { Db } from '../../db/client.js';
import type { StoredWorkspaceFile, WorkspaceChanges, WorkspaceEntry, WorkspaceStore } from '../workspace-store.js';
import type { Synchronous } from '../../store/sqlite/synchronous.js';

/**
 * Workspaces on SQLite: files as blobs keyed by (conversation, path), one row per workspace for its last use; files
 * private to one person in `private_workspace_files`, keyed by (conversation, owner, path).
 */
export function createSqliteWorkspaceStore(db: Db): Synchronous<WorkspaceStore> {
  const c = db.$client;
  const filesStmt = c.prepare<[string], StoredWorkspaceFile>(
    'select path, bytes, size, mtime from workspace_files where conversation_id = ? order by path',
  );
  const entriesStmt = c.prepare<[string], WorkspaceEntry>(
    'select path, size from workspace_files where conversation_id = ? order by path',
  );
  const upsertStmt = c.prepare(
    'insert into workspace_files (conversation_id, path, bytes, size, mtime) values (?, ?, ?, ?, ?) on conflict (conversation_id, path) do update set bytes = excluded.bytes, size = excluded.size, mtime = excluded.mtime',
  );
  const insertStmt = c.prepare(
    'insert into workspace_files (conversation_id, path, bytes, size, mtime) values (?, ?, ?, ?, ?) on conflict do nothing',
  );
  const deleteStmt = c.prepare('delete from workspace_files where conversation_id = ? and path = ?');
  const touchStmt = c.prepare(
    'insert into workspaces (conversation_id, last_used_at) values (?, ?) on conflict (conversation_id) do update set last_used_at = max(last_used_at, excluded.last_used_at)',
  );
  const idleStmt = c.prepare<[number, number], { conversation_id: string }>(
    'select conversation_id from workspaces where last_used_at < ? order by last_used_at limit ?',
  );
  const dropFilesStmt = c.prepare('delete from workspace_files where conversation_id = ?');
  const dropStmt = c.prepare('delete from workspaces where conversation_id = ?');
  const privateFilesStmt = c.prepare<[string, string], StoredWorkspaceFile>(
    'select path, bytes, size, mtime, owner from private_workspace_files where conversation_id = ? and owner = ? order by path',
  );
  const privateEntriesStmt = c.prepare<[string], WorkspaceEntry>(
    'select path, size, owner from private_workspace_files where conversation_id = ? order by owner, path',
  );
  const privateUpsertStmt = c.prepare(
    'insert into private_workspace_files (conversation_id, owner, path, bytes, size, mtime) values (?, ?, ?, ?, ?, ?) on conflict (conversation_id, owner, path) do update set bytes = excluded.bytes, size = excluded.size, mtime = excluded.mtime',
  );
  const privateDeleteStmt = c.prepare(
    'delete from private_workspace_files where conversation_id = ? and owner = ? and path = ?',
  );
  const dropPrivateStmt = c.prepare('delete from private_workspace_files where conversation_id = ?');
  const publishStmt = c.prepare(
    'insert into workspace_files (conversation_id, path, bytes, size, mtime) select conversation_id, path, bytes, size, mtime from private_workspace_files where conversation_id = ? and owner = ? and path = ? and bytes = ? on conflict (conversation_id, path) do update set bytes = excluded.bytes, size = excluded.size, mtime = excluded.mtime',
  );
  const apply = c.transaction((conversationId: string, changes: WorkspaceChanges, now: number) => {
    for (const f of changes.upserts) {
      if (f.owner) privateUpsertStmt.run(conversationId, f.owner, f.path, f.bytes, f.size, f.mtime);
      else upsertStmt.run(conversationId, f.path, f.bytes, f.size, f.mtime);
    }
    for (const p of changes.deletes) deleteStmt.run(conversationId, p);
    for (const k of changes.privateDeletes ?? []) {
      if (k.owner) privateDeleteStmt.run(conversationId, k.owner, k.path);
      else deleteStmt.run(conversationId, k.path);
    }
    touchStmt.run(conversationId, now);
  });
  const publish = c.transaction(
    (conversationId: string, owner: string, files: readonly { path: string; bytes: Uint8Array }[]) => {
      let made = 0;
      for (const f of files) {
        const bytes = Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength);
        if (publishStmt.run(conversationId, owner, f.path, bytes).changes === 1) {
          privateDeleteStmt.run(conversationId, owner, f.path);
          made++;
        }
      }
      return made;
    },
  );
  const add = c.transaction((conversationId: string, f: StoredWorkspaceFile, now: number) => {
    const added = insertStmt.run(conversationId, f.path, f.bytes, f.size, f.mtime).changes === 1;
    if (added) touchStmt.run(conversationId, now);
    return added;
  });
  const drop = c.transaction((ids: readonly string[]) => {
    for (const id of ids) {
      dropFilesStmt.run(id);
      dropPrivateStmt.run(id);
      dropStmt.run(id);
    }
  });
  return {
    files: (conversationId) => filesStmt.all(conversationId),
    entries: (conversationId) => entriesStmt.all(conversationId),
    filesFor: (conversationId, viewer) => [
      ...filesStmt.all(conversationId),
      ...privateFilesStmt.all(conversationId, viewer),
    ],
    privateEntries: (conversationId) => privateEntriesStmt.all(conversationId),
    apply: (conversationId, changes, now) => apply(conversationId, changes, now),
    publish: (conversationId, owner, files) => publish(conversationId, owner, files),
    addIfAbsent: (conversationId, file, now) => add(conversationId, file, now),
    deleteIdleBefore(before, limit) {
      const ids = idleStmt.all(before, limit).map((r) => r.conversation_id);
      drop(ids);
      return ids;
    },
  };
}
