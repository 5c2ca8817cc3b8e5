import { and, asc, eq, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { ConnectionStore } from '../connection-store.js';
import { mcpConnections, mcpOauthClients, mcpOauthPending } from '../../db/pg-schema.js';
import type { PgExecutor } from '../../store/postgres/pg-executor.js';

/** The next token version: every token write moves it on, which is what a refresh claim compares. */
const incremented = sql`${mcpConnections.version} + 1`;

/**
 * OAuth connections on PostgreSQL, shared by every process. The refresh claim and the taking of a `state`
 * are single conditional statements, so two processes racing for either cannot both win.
 */
export function createPgConnectionStore(db: PgExecutor, clock: Clock): ConnectionStore {
  const key = (principal: string, server: string) =>
    and(eq(mcpConnections.principal, principal), eq(mcpConnections.server, server));
  return {
    async connection(principal, server) {
      const rows = await db.select().from(mcpConnections).where(key(principal, server));
      return rows[0] ?? null;
    },
    async connectionsOf(principal) {
      return db
        .select()
        .from(mcpConnections)
        .where(eq(mcpConnections.principal, principal))
        .orderBy(asc(mcpConnections.server));
    },
    async saveConnection(principal, server, t) {
      const now = clock.now();
      const fields = {
        tokens: t.tokens,
        scopes: [...t.scopes],
        account: t.account,
        expiresAt: t.expiresAt,
        refreshHolder: null,
        refreshUntil: null,
        updatedAt: now,
      };
      await db
        .insert(mcpConnections)
        .values({ principal, server, ...fields, version: 1, connectedAt: now })
        .onConflictDoUpdate({
          target: [mcpConnections.principal, mcpConnections.server],
          set: { ...fields, version: incremented },
        });
    },
    async claimRefresh(principal, server, version, holder, until) {
      const free = or(isNull(mcpConnections.refreshUntil), lte(mcpConnections.refreshUntil, clock.now()));
      const rows = await db
        .update(mcpConnections)
        .set({ refreshHolder: holder, refreshUntil: until })
        .where(and(key(principal, server), eq(mcpConnections.version, version), free))
        .returning({ version: mcpConnections.version });
      return rows.length === 1;
    },
    async finishRefresh(principal, server, holder, t) {
      const rows = await db
        .update(mcpConnections)
        .set({
          tokens: t.tokens,
          scopes: [...t.scopes],
          account: t.account,
          expiresAt: t.expiresAt,
          version: incremented,
          refreshHolder: null,
          refreshUntil: null,
          updatedAt: clock.now(),
        })
        .where(and(key(principal, server), eq(mcpConnections.refreshHolder, holder)))
        .returning({ version: mcpConnections.version });
      return rows.length === 1;
    },
    async releaseRefresh(principal, server, holder) {
      await db
        .update(mcpConnections)
        .set({ refreshHolder: null, refreshUntil: null })
        .where(and(key(principal, server), eq(mcpConnections.refreshHolder, holder)));
    },
    async disconnect(principal, server) {
      const rows = await db
        .delete(mcpConnections)
        .where(key(principal, server))
        .returning({ server: mcpConnections.server });
      return rows.length === 1;
    },
    async client(server) {
      const rows = await db
        .select({ client: mcpOauthClients.client })
        .from(mcpOauthClients)
        .where(eq(mcpOauthClients.server, server));
      return rows[0]?.client ?? null;
    },
    async saveClient(server, sealed) {
      const now = clock.now();
      await db
        .insert(mcpOauthClients)
        .values({ server, client: sealed, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({ target: mcpOauthClients.server, set: { client: sealed, updatedAt: now } });
    },
    async forgetClient(server) {
      await db.delete(mcpOauthClients).where(eq(mcpOauthClients.server, server));
    },
    async addClient(server, sealed) {
      const now = clock.now();
      const added = await db
        .insert(mcpOauthClients)
        .values({ server, client: sealed, createdAt: now, updatedAt: now })
        .onConflictDoNothing({ target: mcpOauthClients.server })
        .returning({ server: mcpOauthClients.server });
      return added.length === 1;
    },
    async addPending(p) {
      await db.insert(mcpOauthPending).values({ ...p, scopes: [...p.scopes], usedAt: null, createdAt: clock.now() });
    },
    async takePending(state, now) {
      // Spent in one statement (expired ones too, so a late second click finds it used); the row as it was tells why.
      const taken = await db
        .update(mcpOauthPending)
        .set({ usedAt: now })
        .where(and(eq(mcpOauthPending.state, state), isNull(mcpOauthPending.usedAt)))
        .returning();
      const row = taken[0];
      if (row) return row.expiresAt <= now ? { outcome: 'expired', pending: row } : { outcome: 'taken', pending: row };
      const seen = (await db.select().from(mcpOauthPending).where(eq(mcpOauthPending.state, state)))[0];
      return seen ? { outcome: 'used', pending: seen } : { outcome: 'unknown' };
    },
    async sweepPending(before) {
      const rows = await db
        .delete(mcpOauthPending)
        .where(lt(mcpOauthPending.expiresAt, before))
        .returning({ state: mcpOauthPending.state });
      return rows.length;
    },
  };
}
