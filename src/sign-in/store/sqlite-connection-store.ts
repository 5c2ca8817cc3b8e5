import { and, asc, eq, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { ConnectionStore, TakenPending } from '../connection-store.js';
import type { Db } from '../../db/client.js';
import { mcpConnections, mcpOauthClients, mcpOauthPending } from '../../db/schema.js';
import type { Synchronous } from '../../store/sqlite/synchronous.js';

/** The next token version: every token write moves it on, which is what a refresh claim compares. */
const incremented = sql`${mcpConnections.version} + 1`;

/** OAuth connections on SQLite: one process holds the file, but the claim is written the same way as on PostgreSQL. */
export function createSqliteConnectionStore(db: Db, clock: Clock): Synchronous<ConnectionStore> {
  const key = (principal: string, server: string) =>
    and(eq(mcpConnections.principal, principal), eq(mcpConnections.server, server));
  // Prepared once: every tool call of an OAuth server reads its principal's connection.
  const connectionStmt = db
    .select()
    .from(mcpConnections)
    .where(
      and(
        eq(mcpConnections.principal, sql.placeholder('principal')),
        eq(mcpConnections.server, sql.placeholder('server')),
      ),
    )
    .prepare();
  return {
    connection(principal, server) {
      return connectionStmt.get({ principal, server }) ?? null;
    },
    connectionsOf(principal) {
      return db
        .select()
        .from(mcpConnections)
        .where(eq(mcpConnections.principal, principal))
        .orderBy(asc(mcpConnections.server))
        .all();
    },
    saveConnection(principal, server, t) {
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
      db.insert(mcpConnections)
        .values({ principal, server, ...fields, version: 1, connectedAt: now })
        .onConflictDoUpdate({
          target: [mcpConnections.principal, mcpConnections.server],
          set: { ...fields, version: incremented },
        })
        .run();
    },
    claimRefresh(principal, server, version, holder, until) {
      const now = clock.now();
      const free = or(isNull(mcpConnections.refreshUntil), lte(mcpConnections.refreshUntil, now));
      const r = db
        .update(mcpConnections)
        .set({ refreshHolder: holder, refreshUntil: until })
        .where(and(key(principal, server), eq(mcpConnections.version, version), free))
        .run();
      return r.changes === 1;
    },
    finishRefresh(principal, server, holder, t) {
      const r = db
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
        .run();
      return r.changes === 1;
    },
    releaseRefresh(principal, server, holder) {
      db.update(mcpConnections)
        .set({ refreshHolder: null, refreshUntil: null })
        .where(and(key(principal, server), eq(mcpConnections.refreshHolder, holder)))
        .run();
    },
    disconnect(principal, server) {
      return db.delete(mcpConnections).where(key(principal, server)).run().changes === 1;
    },
    client(server) {
      return (
        db
          .select({ client: mcpOauthClients.client })
          .from(mcpOauthClients)
          .where(eq(mcpOauthClients.server, server))
          .get()?.client ?? null
      );
    },
    saveClient(server, sealed) {
      const now = clock.now();
      db.insert(mcpOauthClients)
        .values({ server, client: sealed, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({ target: mcpOauthClients.server, set: { client: sealed, updatedAt: now } })
        .run();
    },
    forgetClient(server) {
      db.delete(mcpOauthClients).where(eq(mcpOauthClients.server, server)).run();
    },
    addClient(server, sealed) {
      const now = clock.now();
      return (
        db
          .insert(mcpOauthClients)
          .values({ server, client: sealed, createdAt: now, updatedAt: now })
          .onConflictDoNothing({ target: mcpOauthClients.server })
          .run().changes === 1
      );
    },
    addPending(p) {
      db.insert(mcpOauthPending)
        .values({ ...p, scopes: [...p.scopes], usedAt: null, createdAt: clock.now() })
        .run();
    },
    takePending(state, now): TakenPending {
      const row = db.select().from(mcpOauthPending).where(eq(mcpOauthPending.state, state)).get();
      if (!row) return { outcome: 'unknown' };
      if (row.usedAt !== null) return { outcome: 'used', pending: row };
      // Spent even when expired: a late second click must not find it unused.
      db.update(mcpOauthPending).set({ usedAt: now }).where(eq(mcpOauthPending.state, state)).run();
      if (row.expiresAt <= now) return { outcome: 'expired', pending: row };
      return { outcome: 'taken', pending: { ...row, usedAt: now } };
    },
    sweepPending(before) {
      return db.delete(mcpOauthPending).where(lt(mcpOauthPending.expiresAt, before)).run().changes;
    },
  };
}
