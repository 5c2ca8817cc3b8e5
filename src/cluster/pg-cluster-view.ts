import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { ClusterView } from '../admin/cluster-view.js';
import { advisoryLockKey } from '../db/advisory-lock-key.js';
import type { PgDb } from '../db/pg-client.js';

/** The lock gateway-lock.ts takes (its default name). */
const GATEWAY_KEY = advisoryLockKey('discord-gateway');
/** Every process on the database keeps one LISTEN connection named so (wake-channel.ts): the live processes. */
const WAKE_PREFIX = 'errand-wake:';
const GATEWAY_PREFIX = 'errand-gateway:';

const processRows = z.array(z.object({ name: z.string(), since: z.coerce.date().nullable() }));
const holderRows = z.array(z.object({ name: z.string() }));

/**
 * The cluster as PostgreSQL sees it, with no table of its own: each live process holds a wake-up connection whose
 * `application_name` carries its name, and the gateway holder is whichever session holds the gateway's advisory lock
 * (a bigint key shows in pg_locks as classid = its high 32 bits, objid = its low 32 bits, objsubid = 1). Only this
 * database's sessions and locks count: other databases on the same server may hold Errands of their own.
 */
export function createPgClusterView(db: PgDb, processId: string): ClusterView {
  return {
    shared: true,
    async processes() {
      const result =
        await db.execute(sql`select substr(application_name, ${WAKE_PREFIX.length + 1}) as name, min(backend_start) as since
        from pg_stat_activity where datname = current_database() and application_name like ${`${WAKE_PREFIX}%`} group by 1 order by 1`);
      return processRows
        .parse(result.rows)
        .map((r) => ({ id: r.name, since: r.since ? r.since.getTime() : null, self: r.name === processId }));
    },
    async gatewayHolder() {
      const result = await db.execute(sql`select substr(a.application_name, ${GATEWAY_PREFIX.length + 1}) as name
        from pg_locks l join pg_stat_activity a on a.pid = l.pid
        where l.locktype = 'advisory' and l.granted and l.objsubid = 1 and l.database = (select oid from pg_database where datname = current_database())
          and l.classid::bigint = ((${GATEWAY_KEY}::bigint >> 32) & 4294967295) and l.objid::bigint = (${GATEWAY_KEY}::bigint & 4294967295)
        limit 1`);
      return holderRows.parse(result.rows)[0]?.name ?? null;
    },
  };
}
