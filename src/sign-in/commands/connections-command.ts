import type { CommandReply, InboundCommand } from '../../chat/inbound.js';
import { NO_CONNECTIONS, type ConnectionLine, type ConnectionsCommandDeps } from '../../commands/command-deps.js';

export type { ConnectionLine, ConnectionsCommandDeps };

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
  if (!deps || servers.length === 0) return { text: NO_CONNECTIONS };
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
