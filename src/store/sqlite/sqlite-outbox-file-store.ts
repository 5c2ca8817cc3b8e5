import type { Db } from '../../db/client.js';
import type { OutboxFileStore, StoredOutboxFile } from '../outbox-file-store.js';
import type { Synchronous } from './synchronous.js';

interface RawFile {
  name: string;
  mime_type: string;
  bytes: Buffer;
  staged_id: string | null;
}

/** The outbox's file bytes on SQLite: blobs beside their row, prepared statements. */
export function createSqliteOutboxFileStore(db: Db): Synchronous<OutboxFileStore> {
  const c = db.$client;
  const insert = c.prepare(
    'insert into outbox_files (outbox_id, position, name, mime_type, bytes) values (?, ?, ?, ?, ?)',
  );
  const select = c.prepare(
    'select name, mime_type, bytes, staged_id from outbox_files where outbox_id = ? order by position',
  );
  const stage = c.prepare('update outbox_files set staged_id = ? where outbox_id = ? and position = ?');
  const release = c.prepare('delete from outbox_files where outbox_id = ?');
  const releaseSettled = c.prepare(
    "delete from outbox_files where not exists (select 1 from outbox o where o.id = outbox_files.outbox_id and o.status = 'pending')",
  );
  return {
    add(outboxId, files) {
      files.forEach((f, i) =>
        insert.run(
          outboxId,
          i,
          f.name,
          f.mimeType,
          Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength),
        ),
      );
    },
    filesOf(outboxId) {
      return (select.all(outboxId) as RawFile[]).map((r): StoredOutboxFile => ({
        name: r.name,
        mimeType: r.mime_type,
        bytes: new Uint8Array(r.bytes),
        stagedId: r.staged_id,
      }));
    },
    setStaged(outboxId, ids) {
      ids.forEach((id, i) => stage.run(id, outboxId, i));
    },
    release(outboxId) {
      release.run(outboxId);
    },
    releaseSettled() {
      return releaseSettled.run().changes;
    },
  };
}
