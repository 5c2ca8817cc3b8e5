import type { CommandReply, InboundCommand } from '../chat/inbound.js';

/** One connection as `/connections` shows it: never a token. */
export interface ConnectionLine {
  readonly server: string;
  readonly account: string | null;
  readonly scopes: readonly string[];
  /** When the person connected (epoch ms). */
  readonly since: number;
}

/**
 * What `/connections` needs of per-person OAuth (DESIGN.md "Signing in to MCP servers"). The principal is
 * `platform:userId`: the command acts for whoever typed it, on their own connections only.
 */
export interface ConnectionsCommandDeps {
  /** The `auth: "oauth"` servers; none: the command says sign-in is not used here. */
  servers(): readonly string[];
  list(principal: string): Promise<readonly ConnectionLine[]>;
  /** Forgets the person's tokens for the server and closes their session to it; false when there were none. */
  disconnect(principal: string, server: string): Promise<boolean>;
}

const USAGE = 'Use `/connections` to list your connections, or `/connections disconnect <server>`.';

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** One connection as a line of Markdown (server, account, since, scopes): `/connections` and the App Home alike. */
export function describeConnection(c: ConnectionLine): string {
  const account = c.account ? ` as ${c.account}` : '';
  const scopes = c.scopes.length > 0 ? ` · scopes: ${c.scopes.join(' ')}` : '';
  return `• **${c.server}**${account} · since ${day(c.since)}${scopes}`;
}

/** `/connections`: the person's own sign-ins to MCP servers; `/connections disconnect <server>` removes one. */
export async function handleConnectionsCommand(
  cmd: InboundCommand,
  deps: ConnectionsCommandDeps | undefined,
): Promise<CommandReply> {
  const servers = deps?.servers() ?? [];
  if (!deps || servers.length === 0)
    return { text: 'No MCP server here asks people to sign in, so there are no connections to show.' };
  const principal = `${cmd.channel.platform}:${cmd.userId}`;
  const [verb, server, ...rest] = cmd.args.split(/\s+/).filter((w) => w !== '');
  if (verb === undefined) {
    const mine = await deps.list(principal);
    const open = servers.filter((s) => !mine.some((c) => c.server === s));
    return {
      text: [
        mine.length > 0 ? '**Your connections**' : 'You have not connected any MCP server yet.',
        ...mine.map(describeConnection),
        ...(open.length > 0
          ? [`Not connected: ${open.join(', ')} (I send you a Connect link when a request needs one).`]
          : []),
        ...(mine.length > 0 ? ['Disconnect one with `/connections disconnect <server>`.'] : []),
      ].join('\n'),
    };
  }
  if (verb.toLowerCase() !== 'disconnect' || server === undefined || rest.length > 0) return { text: USAGE };
  return { text: await disconnectConnection(deps, principal, server) };
}

/** Forgets the person's own tokens for `server` (the command and the App Home's Disconnect button); says what happened. */
export async function disconnectConnection(
  deps: ConnectionsCommandDeps,
  principal: string,
  server: string,
): Promise<string> {
  const servers = deps.servers();
  if (!servers.includes(server))
    return `There is no MCP server "${server}" that people sign in to. They are: ${servers.join(', ')}.`;
  return (await deps.disconnect(principal, server))
    ? `Disconnected **${server}**: I forgot your tokens for it. A request that needs it will ask you to connect again.`
    : `You have no connection to **${server}**.`;
}
