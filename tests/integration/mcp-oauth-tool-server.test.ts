import { afterEach, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../src/agent/tools/tool.js';
import { loadConfig } from '../../src/config.js';
import type { HttpServerSettings } from '../../src/settings/mcp-server-settings.js';
import { OAuthToolServer, SIGN_IN_TOOL } from '../../src/sign-in/mcp/oauth-tool-server.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { waitFor } from '../fakes/wait-for.js';
import { startOAuthHarness, type OAuthHarness } from './oauth-harness.js';

let h: OAuthHarness | null = null;
let server: OAuthToolServer | null = null;
afterEach(async () => {
  await server?.close();
  await h?.close();
  h = null;
  server = null;
});

const context = (userId: string, runId = 'run-1'): ToolContext => ({
  conversationId: 'slack:C1:1.0',
  conversation: { platform: 'slack', workspace: 'T1', channel: 'C1', thread: '1.0' },
  runId,
  taskId: null,
  userId,
  principal: { platform: 'slack', userId },
  timezone: 'UTC',
  now: () => Date.now(),
});

function settingsFor(url: string): HttpServerSettings {
  const env = {
    OPENAI_API_KEY: 'k',
    PUBLIC_URL: 'https://e.example',
    ERRAND_SECRET_KEY: 'x'.repeat(64),
    ...errandFileEnv({ mcpServers: { linear: { url, auth: 'oauth' } } }),
  };
  return loadConfig(env).file.settings.mcpServers.linear as HttpServerSettings;
}

/** The per-person tool server on the harness's service, with `maxSessions` open sessions at most. */
function toolServer(
  harness: OAuthHarness,
  maxSessions: number,
  notices: { userId: string; text: string }[],
  privateNotices = true,
): OAuthToolServer {
  const s = new OAuthToolServer({
    name: 'linear',
    settings: settingsFor(harness.fake.mcpUrl),
    logger: harness.log.logger,
    clock: harness.clock,
    maxResultChars: 16_000,
    onToolsChanged: () => {},
    maxSessions,
  });
  s.bind({
    connections: harness.connections,
    notify: async (_c, userId, text) => void notices.push({ userId, text }),
    privateIn: () => privateNotices,
  });
  return s;
}

const call = (s: OAuthToolServer, tool: string, userId: string) =>
  s.call(tool, `linear__${tool}`, {}, new AbortController().signal, context(userId));

describe("OAuthToolServer: each call with its principal's own token", () => {
  it('two people, two tokens reaching the server, over a session bound of one; a person without a connection never reaches it', async () => {
    h = await startOAuthHarness();
    await h.signIn('slack:UANA', { subject: 'ana' });
    await h.signIn('slack:UBEN', { subject: 'ben' });
    const notices: { userId: string; text: string }[] = [];
    server = toolServer(h, 1, notices);
    expect(server.tools.map((t) => t.name)).toEqual([SIGN_IN_TOOL]);

    expect(await call(server, SIGN_IN_TOOL, 'UANA')).toMatchObject({ ok: true, connected: true });
    expect(server.tools.map((t) => t.name)).toEqual(['whoami', 'write_note']);
    // Alternating people with one open session at most: each call reopens its person's session with their token.
    const alternate = async (s: OAuthToolServer): Promise<number> => {
      const start = h!.fake.accepted.length;
      for (const who of ['UANA', 'UBEN', 'UANA', 'UBEN', 'UANA', 'UBEN']) {
        expect(await call(s, 'whoami', who)).toEqual({ ok: true, content: who === 'UANA' ? 'ana' : 'ben' });
      }
      return h!.fake.accepted.length - start;
    };
    const boundOfOne = await alternate(server);
    const roomy = toolServer(h, 10, notices);
    await call(roomy, SIGN_IN_TOOL, 'UANA');
    const boundOfTen = await alternate(roomy);
    await roomy.close();
    // Reopening a session costs an initialize round trip each time: the bound of one really closed the other person's.
    expect(boundOfOne).toBeGreaterThan(boundOfTen);
    const before = h.fake.accepted.length;
    expect(await call(server, 'whoami', 'UCARL')).toEqual({
      ok: false,
      error:
        'UCARL has not connected linear yet; they were sent a link to connect. Ask them to connect and then try again.',
      signIn: { server: 'linear' },
    });
    expect(h.fake.accepted).toHaveLength(before);
    expect(notices).toEqual([
      {
        userId: 'UCARL',
        text: expect.stringMatching(
          /^To use \*\*linear\*\* for you I need you to connect your account\. Connect linear: http/,
        ),
      },
    ]);
    expect(new Set(h.fake.accepted.map((a) => a.subject))).toEqual(new Set(['ana', 'ben']));
    for (const t of h.fake.issued) expect(JSON.stringify(h.log.lines)).not.toContain(t.accessToken);
  });

  it('where notices are not private (Discord outside an interaction) no sign-in link is sent: the person and the model are told connecting is not possible there', async () => {
    h = await startOAuthHarness();
    const notices: { userId: string; text: string }[] = [];
    server = toolServer(h, 5, notices, false);
    const before = h.fake.accepted.length;
    expect(await call(server, SIGN_IN_TOOL, 'UCARL')).toEqual({
      ok: false,
      error: expect.stringContaining(
        'UCARL has not connected linear yet, and this platform cannot show them a private sign-in link',
      ),
    });
    expect(notices).toHaveLength(1);
    expect(notices[0]!.text).toMatch(/cannot be shown to you privately here/);
    expect(notices[0]!.text).not.toMatch(/https?:\/\//);
    expect(h.fake.accepted).toHaveLength(before);
  });

  it("after a disconnect the person's session is closed and the next call asks them to connect; after close nothing runs", async () => {
    h = await startOAuthHarness();
    await h.signIn('slack:UANA', { subject: 'ana' });
    const notices: { userId: string; text: string }[] = [];
    server = toolServer(h, 10, notices);
    expect(await call(server, 'whoami', 'UANA')).toEqual({ ok: true, content: 'ana' });
    expect(await h.connections.disconnect('slack:UANA', 'linear')).toBe(true);
    await server.forget('slack:UANA');
    expect(await call(server, 'whoami', 'UANA')).toMatchObject({
      ok: false,
      error: expect.stringContaining('UANA has not connected linear yet'),
    });
    expect(notices).toHaveLength(1);
    await server.close();
    expect(await call(server, 'whoami', 'UANA')).toEqual({
      ok: false,
      error: 'linear__whoami did not run: Errand is shutting down.',
    });
  });

  it("the session bound never closes a session a call is running on: the other person's call opens its own, and the long call ends well", async () => {
    h = await startOAuthHarness();
    await h.signIn('slack:UANA', { subject: 'ana' });
    await h.signIn('slack:UBEN', { subject: 'ben' });
    server = toolServer(h, 1, []);
    expect(await call(server, SIGN_IN_TOOL, 'UANA')).toMatchObject({ ok: true, connected: true });
    const hold = h.fake.holdCalls('write_note');
    const long = server.call(
      'write_note',
      'linear__write_note',
      { text: 'a long note' },
      new AbortController().signal,
      context('UANA'),
    );
    await waitFor(() => hold.waiting() === 1, 5000, "Ana's call under way at the server");
    // Ben's call needs a session of his own while Ana's is the one allowed: hers is not closed under her call.
    expect(await call(server, 'whoami', 'UBEN')).toEqual({ ok: true, content: 'ben' });
    hold.release();
    expect(await long).toEqual({ ok: true, content: 'ana wrote a long note' });
    // Once idle, the bound holds again: the least recently used session goes at the next open.
    expect(await call(server, 'whoami', 'UANA')).toEqual({ ok: true, content: 'ana' });
  });

  it('a 403 insufficient_scope asks the person again (a step-up link) instead of failing; after consenting the call runs', async () => {
    h = await startOAuthHarness({ fake: { scopesSupported: ['read', 'write'] } });
    await h.signIn('slack:UANA', { subject: 'ana' });
    h.fake.requireScope('write_note', 'admin');
    const notices: { userId: string; text: string }[] = [];
    server = toolServer(h, 10, notices);
    expect(await call(server, 'whoami', 'UANA')).toEqual({ ok: true, content: 'ana' });
    const write = () =>
      server!.call(
        'write_note',
        'linear__write_note',
        { text: 'hi' },
        new AbortController().signal,
        context('UANA', 'run-2'),
      );
    expect(await write()).toEqual({
      ok: false,
      error:
        'linear asked UANA to sign in again (it needs more access, or their sign-in ended); they were sent a link. Ask them to sign in and then try again.',
      signIn: { server: 'linear' },
    });
    expect(notices.at(-1)!.text).toMatch(/^To do this in \*\*linear\*\* for you I need you to sign in again/);
    const link = notices.at(-1)!.text.match(/https?:\/\/\S+/)![0];
    expect(new URL(link).searchParams.get('scope')?.split(' ')).toContain('admin');
    expect((await h.browse(await h.fake.consent(link, { subject: 'ana' }))).status).toBe(200);
    // The link was bound to the run that needed it (run-2), not to the run that opened the shared session (run-1).
    expect(h.connected.at(-1)).toEqual({ principal: 'slack:UANA', server: 'linear', runId: 'run-2' });
    expect(await write()).toEqual({ ok: true, content: 'ana wrote hi' });
  });
});
