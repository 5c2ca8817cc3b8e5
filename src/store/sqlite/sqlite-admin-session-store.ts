import { z } from 'zod';
import type { AdminSessionStore } from '../../admin/admin-session-store.js';
import type { Db } from '../../db/client.js';
import type { Synchronous } from './synchronous.js';
import { writeGroup } from './write-group.js';

const principalRow = z.object({ person: z.string(), roles: z.string().nullable() });
const linkRow = principalRow.extend({ expiresAt: z.number(), usedAt: z.number().nullable() });
const rolesOf = (raw: string | null): string[] | null =>
  raw === null ? null : z.array(z.string()).parse(JSON.parse(raw));

/** Sign-in links and sessions on SQLite, by the hashes of their secrets. */
export function createSqliteAdminSessionStore(db: Db): Synchronous<AdminSessionStore> {
  const s = db.$client;
  const addLink = s.prepare(
    'insert into admin_links (token_hash, person, roles, expires_at, created_at) values (?, ?, ?, ?, ?)',
  );
  const link = s.prepare(
    'select person, roles, expires_at as expiresAt, used_at as usedAt from admin_links where token_hash = ?',
  );
  const spend = s.prepare(
    'update admin_links set used_at = ? where token_hash = ? and used_at is null and expires_at > ?',
  );
  const addSession = s.prepare(
    'insert into admin_sessions (token_hash, person, roles, expires_at, created_at) values (?, ?, ?, ?, ?)',
  );
  const session = s.prepare('select person, roles from admin_sessions where token_hash = ? and expires_at > ?');
  const endSession = s.prepare('delete from admin_sessions where token_hash = ?');
  const sweepLinks = s.prepare('delete from admin_links where expires_at < ?');
  const sweepSessions = s.prepare('delete from admin_sessions where expires_at < ?');
  const atomic = writeGroup(s);
  return {
    addLink: (hash, p, expiresAt, now) =>
      void addLink.run(hash, p.person, p.roles ? JSON.stringify(p.roles) : null, expiresAt, now),
    takeLink: (hash, now) =>
      atomic(() => {
        const raw = link.get(hash);
        if (raw === undefined) return { outcome: 'unknown' as const };
        const row = linkRow.parse(raw);
        if (spend.run(now, hash, now).changes === 1)
          return { outcome: 'taken' as const, principal: { person: row.person, roles: rolesOf(row.roles) } };
        return { outcome: row.usedAt !== null ? ('used' as const) : ('expired' as const) };
      }),
    addSession: (hash, p, expiresAt, now) =>
      void addSession.run(hash, p.person, p.roles ? JSON.stringify(p.roles) : null, expiresAt, now),
    session: (hash, now) => {
      const raw = session.get(hash, now);
      if (raw === undefined) return null;
      const row = principalRow.parse(raw);
      return { person: row.person, roles: rolesOf(row.roles) };
    },
    endSession: (hash) => void endSession.run(hash),
    sweep: (before) => atomic(() => sweepLinks.run(before).changes + sweepSessions.run(before).changes),
  };
}
