import { chainHash, entryText, GENESIS_HASH } from '../../audit/audit-chain.js';
import type { AuditStore } from '../../audit/audit-store.js';
import type { Db } from '../../db/client.js';
import { auditRows } from '../console-query-rows.js';
import type { Synchronous } from './synchronous.js';
import { writeGroup } from './write-group.js';

const COLUMNS = 'id, at, kind, actor, run_id as runId, entry, prev_hash as prevHash, hash';

/** The audit log on SQLite: one connection, so reading the last hash and inserting the next entry are one step. */
export function createSqliteAuditStore(db: Db): Synchronous<AuditStore> {
  const s = db.$client;
  const last = s.prepare('select hash from audit_log order by id desc limit 1').pluck();
  const insert = s.prepare(
    'insert into audit_log (at, kind, actor, run_id, entry, prev_hash, hash) values (?, ?, ?, ?, ?, ?, ?)',
  );
  const newest = s.prepare(
    `select ${COLUMNS} from audit_log where id < ? and (? is null or kind = ?) and (? is null or run_id = ?) order by id desc limit ?`,
  );
  const after = s.prepare(`select ${COLUMNS} from audit_log where id > ? order by id limit ?`);
  const atomic = writeGroup(s);
  return {
    append: (entry) =>
      atomic(() => {
        const prevHash = (last.get() as string | undefined) ?? GENESIS_HASH;
        const text = entryText(entry);
        const hash = chainHash(prevHash, text);
        const id = Number(
          insert.run(entry.at, entry.kind, entry.actor, entry.runId, text, prevHash, hash).lastInsertRowid,
        );
        return { ...entry, id, prevHash, hash };
      }),
    page: (filter, beforeId, limit) => {
      const kind = filter.kind ?? null;
      const runId = filter.runId ?? null;
      return auditRows.parse(newest.all(beforeId ?? Number.MAX_SAFE_INTEGER, kind, kind, runId, runId, limit));
    },
    after: (afterId, limit) => auditRows.parse(after.all(afterId, limit)),
  };
}
