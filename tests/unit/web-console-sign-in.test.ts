import { describe, expect, it } from 'vitest';
import { createAccessPolicy, type Person } from '../../src/access/access-policy.js';
import { createAdminSignIn, LINK_TTL_MS, SESSION_TTL_MS } from '../../src/admin/admin-sign-in.js';
import type { AdminPrincipal, AdminSessionStore, TakenLink } from '../../src/admin/admin-session-store.js';
import { csrfMatches, csrfTokenOf, secretHash } from '../../src/admin/admin-tokens.js';
import { mayUseConsole } from '../../src/admin/console-people.js';
import { handleAdminCommand, type AdminCommandDeps } from '../../src/commands/admin-command.js';
import { accessSchema } from '../../src/settings/team-settings.js';
import { html, trusted } from '../../src/web-console/html.js';
import { sessionCookie, sessionSecretOf } from '../../src/web-console/session-cookie.js';

/** The sign-in store in memory: the contract both databases keep (tests/integration/web-console-store.test.ts). */
function memoryStore(): AdminSessionStore & {
  links: Map<string, { p: AdminPrincipal; expiresAt: number; used: boolean }>;
  sessions: Map<string, { p: AdminPrincipal; expiresAt: number }>;
} {
  const links = new Map<string, { p: AdminPrincipal; expiresAt: number; used: boolean }>();
  const sessions = new Map<string, { p: AdminPrincipal; expiresAt: number }>();
  return {
    links,
    sessions,
    addLink: async (h, p, expiresAt) => void links.set(h, { p, expiresAt, used: false }),
    takeLink: async (h, now): Promise<TakenLink> => {
      const l = links.get(h);
      if (!l) return { outcome: 'unknown' };
      if (l.used) return { outcome: 'used' };
      if (l.expiresAt <= now) return { outcome: 'expired' };
      l.used = true;
      return { outcome: 'taken', principal: l.p };
    },
    addSession: async (h, p, expiresAt) => void sessions.set(h, { p, expiresAt }),
    session: async (h, now) => {
      const s = sessions.get(h);
      return s && s.expiresAt > now ? s.p : null;
    },
    endSession: async (h) => void sessions.delete(h),
    sweep: async () => 0,
  };
}

const ADMIN: Person = { platform: 'slack', userId: 'U0ADMIN01' };

describe('signing in to the web console', () => {
  it('gives a link that works once, within 10 minutes, and stores only hashes', async () => {
    let now = 1_000_000;
    const store = memoryStore();
    const signIn = createAdminSignIn({
      store,
      now: () => now,
      baseUrl: () => 'https://errand.example.com',
      mayUse: () => true,
    });
    const link = await signIn.issueLink(ADMIN);
    const secret = /^https:\/\/errand\.example\.com\/admin\/sign-in\/([A-Za-z0-9_-]{43})$/.exec(link)?.[1];
    expect(secret).toBeDefined();
    expect([...store.links.keys()]).toEqual([secretHash(secret!)]);
    expect(store.links.get(secretHash(secret!))?.expiresAt).toBe(now + LINK_TTL_MS);
    const first = await signIn.redeem(secret!);
    expect(first).toMatchObject({ kind: 'signed_in', user: { key: 'slack:U0ADMIN01' } });
    expect(await signIn.redeem(secret!)).toEqual({ kind: 'used' });
    if (first.kind !== 'signed_in') throw new Error('not signed in');
    expect([...store.sessions.keys()]).toEqual([secretHash(first.sessionSecret)]);
    expect(store.sessions.get(secretHash(first.sessionSecret))?.expiresAt).toBe(now + SESSION_TTL_MS);

    const late = /sign-in\/(.+)$/.exec(await signIn.issueLink(ADMIN))![1]!;
    now += LINK_TTL_MS;
    expect(await signIn.redeem(late)).toEqual({ kind: 'expired' });
    expect(await signIn.redeem('x'.repeat(43))).toEqual({ kind: 'unknown' });
  });

  it('ends the session the moment its person is no longer an admin, and when it is 12 hours old', async () => {
    let now = 5_000;
    let admins = new Set(['slack:U0ADMIN01']);
    const signIn = createAdminSignIn({
      store: memoryStore(),
      now: () => now,
      baseUrl: () => 'http://127.0.0.1:3100',
      mayUse: (p) => admins.has(`${p.platform}:${p.userId}`),
    });
    const secret = /sign-in\/(.+)$/.exec(await signIn.issueLink(ADMIN))![1]!;
    const r = await signIn.redeem(secret);
    if (r.kind !== 'signed_in') throw new Error('not signed in');
    expect(await signIn.user(r.sessionSecret)).toMatchObject({ key: 'slack:U0ADMIN01' });
    admins = new Set();
    expect(await signIn.user(r.sessionSecret)).toBeNull();
    admins = new Set(['slack:U0ADMIN01']);
    now += SESSION_TTL_MS;
    expect(await signIn.user(r.sessionSecret)).toBeNull();

    const unused = /sign-in\/(.+)$/.exec(await signIn.issueLink(ADMIN))![1]!;
    admins = new Set();
    expect(await signIn.redeem(unused)).toEqual({ kind: 'not_admin' });
  });

  it("lets in the listed admins (a Discord role too), and without an access key only the console's own user", () => {
    const access = createAccessPolicy(
      accessSchema.parse({ admins: ['slack:U0ADMIN01', 'discord:role:334455667788990011'] }),
    );
    expect(mayUseConsole(access, ADMIN)).toBe(true);
    expect(
      mayUseConsole(access, { platform: 'discord', userId: '223344556677889900', roles: ['334455667788990011'] }),
    ).toBe(true);
    expect(mayUseConsole(access, { platform: 'slack', userId: 'U0ALICE01' })).toBe(false);
    expect(mayUseConsole(access, { platform: 'console', userId: 'you' })).toBe(false);
    const open = createAccessPolicy(undefined);
    expect(mayUseConsole(open, { platform: 'console', userId: 'you' })).toBe(true);
    expect(mayUseConsole(open, ADMIN)).toBe(false);
  });

  it('derives the CSRF token from the session, which the cookie alone carries', () => {
    const secret = 'A'.repeat(43);
    expect(csrfMatches(secret, csrfTokenOf(secret))).toBe(true);
    expect(csrfMatches(secret, csrfTokenOf('B'.repeat(43)))).toBe(false);
    expect(csrfMatches(secret, '')).toBe(false);
    expect(csrfTokenOf(secret)).not.toBe(secretHash(secret));
    expect(sessionCookie(secret, false)).toBe(
      `errand_console=${secret}; Path=/; HttpOnly; SameSite=Strict; Max-Age=43200`,
    );
    expect(sessionCookie(secret, true)).toBe(
      `__Host-errand_console=${secret}; Path=/; HttpOnly; SameSite=Strict; Max-Age=43200; Secure`,
    );
    const req = { headers: { cookie: `other=1; errand_console=${secret}` } } as Parameters<typeof sessionSecretOf>[0];
    expect(sessionSecretOf(req, false)).toBe(secret);
    expect(sessionSecretOf(req, true)).toBeNull();
  });

  it('escapes every value put in a page unless it is markup already', () => {
    const name = '<img src=x onerror="alert(1)">&\'';
    expect(
      html`<p title="${name}">${name}</p>
        ${trusted('<br>')}${[html`<i>${'<'}</i>`, null, false]}`.text,
    ).toBe(
      '<p title="&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&#39;">&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&#39;</p><br><i>&lt;</i>',
    );
  });
});

describe('/admin', () => {
  const deps = (over: Partial<AdminCommandDeps> = {}): AdminCommandDeps => ({
    unavailable: () => null,
    mayUse: (p) => p.userId === 'U0ADMIN01',
    issueLink: async () => 'http://127.0.0.1:3100/admin/sign-in/secret',
    localNote: () => 'PUBLIC_URL is not set, so this link only opens in a browser on the machine Errand runs on.',
    ...over,
  });
  const cmd = (userId: string) => ({
    name: 'admin' as const,
    args: '',
    channel: { platform: 'slack', workspace: 'T1', channel: 'C1' },
    conversation: null,
    userId,
  });

  it('gives an admin the link, privately, and says when it only works on this machine', async () => {
    const reply = await handleAdminCommand(cmd('U0ADMIN01'), deps());
    expect(reply.text).toContain('http://127.0.0.1:3100/admin/sign-in/secret');
    expect(reply.text).toContain('works once, for 10 minutes');
    expect(reply.text).toContain('PUBLIC_URL is not set');
    expect((await handleAdminCommand(cmd('U0ADMIN01'), deps({ localNote: () => null }))).text).not.toContain(
      'PUBLIC_URL',
    );
  });

  it('refuses anyone else, and says why when the console is not served', async () => {
    let issued = 0;
    const reply = await handleAdminCommand(cmd('U0ALICE01'), deps({ issueLink: async () => `x${++issued}` }));
    expect(reply.text).toMatch(/Only admins/);
    expect(issued).toBe(0);
    expect(
      (
        await handleAdminCommand(
          cmd('U0ADMIN01'),
          deps({ unavailable: () => 'The web console is not served by this Errand process.' }),
        )
      ).text,
    ).toBe('The web console is not served by this Errand process.');
    expect((await handleAdminCommand(cmd('U0ADMIN01'), undefined)).text).toMatch(/not available/);
  });
});
