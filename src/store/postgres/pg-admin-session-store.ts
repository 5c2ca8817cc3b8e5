import { and, eq, gt, isNull, lt } from 'drizzle-orm';
import type { AdminSessionStore } from '../../admin/admin-session-store.js';
import { adminLinks, adminSessions } from '../../db/pg-schema.js';
import type { PgExecutor } from './pg-executor.js';

/** Sign-in links and sessions on PostgreSQL, by the hashes of their secrets: any process serves them. */
export function createPgAdminSessionStore(db: PgExecutor): AdminSessionStore {
  return {
    async addLink(tokenHash, p, expiresAt, now) {
      await db
        .insert(adminLinks)
        .values({ tokenHash, person: p.person, roles: p.roles ? [...p.roles] : null, expiresAt, createdAt: now });
    },
    async takeLink(tokenHash, now) {
      // One conditional update: of two processes taking the same link, one sees its row change.
      const [taken] = await db
        .update(adminLinks)
        .set({ usedAt: now })
        .where(and(eq(adminLinks.tokenHash, tokenHash), isNull(adminLinks.usedAt), gt(adminLinks.expiresAt, now)))
        .returning({ person: adminLinks.person, roles: adminLinks.roles });
      if (taken) return { outcome: 'taken', principal: { person: taken.person, roles: taken.roles } };
      const [row] = await db
        .select({ usedAt: adminLinks.usedAt })
        .from(adminLinks)
        .where(eq(adminLinks.tokenHash, tokenHash));
      if (!row) return { outcome: 'unknown' };
      return { outcome: row.usedAt !== null ? 'used' : 'expired' };
    },
    async addSession(tokenHash, p, expiresAt, now) {
      await db
        .insert(adminSessions)
        .values({ tokenHash, person: p.person, roles: p.roles ? [...p.roles] : null, expiresAt, createdAt: now });
    },
    async session(tokenHash, now) {
      const [row] = await db
        .select({ person: adminSessions.person, roles: adminSessions.roles })
        .from(adminSessions)
        .where(and(eq(adminSessions.tokenHash, tokenHash), gt(adminSessions.expiresAt, now)));
      return row ? { person: row.person, roles: row.roles } : null;
    },
    async endSession(tokenHash) {
      await db.delete(adminSessions).where(eq(adminSessions.tokenHash, tokenHash));
    },
    async sweep(before) {
      const links = await db
        .delete(adminLinks)
        .where(lt(adminLinks.expiresAt, before))
        .returning({ h: adminLinks.tokenHash });
      const sessions = await db
        .delete(adminSessions)
        .where(lt(adminSessions.expiresAt, before))
        .returning({ h: adminSessions.tokenHash });
      return links.length + sessions.length;
    },
  };
}
