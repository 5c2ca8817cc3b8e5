import { describe, expect, it } from 'vitest';
import type { InboundCommand } from '../../src/chat/inbound.js';
import {
  handleConnectionsCommand,
  type ConnectionLine,
  type ConnectionsCommandDeps,
} from '../../src/sign-in/commands/connections-command.js';

const cmd = (args: string, userId = 'U1', platform = 'slack'): InboundCommand => ({
  name: 'connections',
  args,
  channel: { platform, workspace: 'T1', channel: 'C1' },
  conversation: null,
  userId,
});

/** The command's deps over a map of principal → connections, recording disconnects. */
function deps(
  servers: string[],
  held: Record<string, ConnectionLine[]>,
): ConnectionsCommandDeps & { disconnected: string[] } {
  const disconnected: string[] = [];
  return {
    disconnected,
    servers: () => servers,
    list: async (p) => held[p] ?? [],
    async disconnect(p, server) {
      disconnected.push(`${p} ${server}`);
      const before = held[p] ?? [];
      held[p] = before.filter((c) => c.server !== server);
      return held[p].length < before.length;
    },
  };
}

const since = Date.UTC(2026, 10, 2, 9, 30);

describe('/connections', () => {
  it("lists the person's own connections (server, account, since, scopes) and what they have not connected", async () => {
    const d = deps(['linear', 'github'], {
      'slack:U1': [{ server: 'linear', account: 'ana@example.com', scopes: ['read', 'write'], since }],
      'slack:U2': [{ server: 'github', account: 'ben', scopes: [], since }],
    });
    const text = (await handleConnectionsCommand(cmd(''), d)).text;
    expect(text).toContain('• **linear** as ana@example.com · since 2026-11-02 · scopes: read write');
    expect(text).toContain('Not connected: github');
    expect(text).not.toContain('ben');
    expect((await handleConnectionsCommand(cmd('', 'U1', 'discord'), d)).text).toContain(
      'You have not connected any MCP server yet.',
    );
  });

  it("disconnect <server> acts on the person's own connection; unknown servers and other words get the usage", async () => {
    const d = deps(['linear'], { 'slack:U1': [{ server: 'linear', account: null, scopes: [], since }] });
    expect((await handleConnectionsCommand(cmd('disconnect linear'), d)).text).toContain('Disconnected **linear**');
    expect(d.disconnected).toEqual(['slack:U1 linear']);
    expect((await handleConnectionsCommand(cmd('disconnect linear'), d)).text).toBe(
      'You have no connection to **linear**.',
    );
    expect((await handleConnectionsCommand(cmd('disconnect notion'), d)).text).toContain(
      'There is no MCP server "notion"',
    );
    expect((await handleConnectionsCommand(cmd('forget linear'), d)).text).toContain(
      '/connections disconnect <server>',
    );
    expect(d.disconnected).toHaveLength(2);
  });

  it('says so when no server uses sign-in', async () => {
    expect((await handleConnectionsCommand(cmd(''), undefined)).text).toContain(
      'No MCP server here asks people to sign in',
    );
    expect((await handleConnectionsCommand(cmd('disconnect linear'), deps([], {}))).text).toContain(
      'No MCP server here asks people to sign in',
    );
  });
});
