import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { chainHash, entryText, GENESIS_HASH } from '../../audit/audit-chain.js';
import type { AuditStore } from '../../audit/audit-store.js';
import { advisoryLockKey } from '../../db/advisory-lock-key.js';
import { auditRows } from '../console-query-rows.js';
import type { PgExecutor } from './pg-executor.js';

/** Held by the transaction that appends, from reading the last hash to its commit: one append at a time, cluster-wide. */
const AUDIT_LOCK = advisoryLockKey('audit-log');

const COLUMNS = sql.raw('id, at, kind, actor, run_id as "runId", entry, prev_hash as "prevHash", hash');

/**
 * The audit log on PostgreSQL. Processes append concurrently, and the chain must stay one line: each append reads
 * the last hash and inserts under a transaction-scoped advisory lock, released at its commit, so the next append
 * (on any process) reads the row this one wrote, and ids grow in the order of the chain.
 */
export function createPgAuditStore(db: PgExecutor): AuditStore {
  return {
    append: (entry) =>
      db.transaction(async (t) => {
        await t.execute(sql`select pg_advisory_xact_lock(${AUDIT_LOCK}::bigint)`);
        const last = await t.execute(sql`select hash from audit_log order by id desc limit 1`);
        const prevHash = z.array(z.object({ hash: z.string() })).parse(last.rows)[0]?.hash ?? GENESIS_HASH;
        const text = entryText(entry);
        const hash = chainHash(prevHash, text);
        const inserted = await t.execute(sql`insert into audit_log (at, kind, actor, run_id, entry, prev_hash, hash)
          values (${entry.at}, ${entry.kind}, ${entry.actor}, ${entry.runId}, ${text}, ${prevHash}, ${hash}) returning id`);
        const id = z.array(z.object({ id: z.coerce.number() })).parse(inserted.rows)[0]?.id ?? 0;
        return { ...entry, id, prevHash, hash };
      }),
    async page(filter, beforeId, limit) {
      const kind = filter.kind ?? null;
      const runId = filter.runId ?? null;
      const rows =
        await db.execute(sql`select ${COLUMNS} from audit_log where id < ${beforeId ?? Number.MAX_SAFE_INTEGER}
        and (${kind}::text is null or kind = ${kind}) and (${runId}::text is null or run_id = ${runId}) order by id desc limit ${limit}`);
      return auditRows.parse(rows.rows);
    },
    async after(afterId, limit) {
      const rows = await db.execute(
        sql`select ${COLUMNS} from audit_log where id > ${afterId} order by id limit ${limit}`,
      );
      return auditRows.parse(rows.rows);
    },
  };
}
