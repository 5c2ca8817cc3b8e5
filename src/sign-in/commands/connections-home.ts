import { disconnectActionId, type HomeConnections } from '../../chat/home-connections.js';
import type { HomeRequest } from '../../chat/schedule-form.js';
import type { SurfaceSink } from '../../chat/surface-sink.js';
import { describeConnection, disconnectConnection, type ConnectionsCommandDeps } from './connections-command.js';

/** The Connections section of one person's App Home; null where no server asks people to sign in. */
export async function buildHomeConnections(
  request: Pick<HomeRequest, 'platform' | 'userId'>,
  deps: ConnectionsCommandDeps,
): Promise<HomeConnections | null> {
  const servers = deps.servers();
  if (servers.length === 0) return null;
  const mine = await deps.list(`${request.platform}:${request.userId}`);
  return {
    connected: mine.map((c) => ({
      server: c.server,
      text: describeConnection(c),
      disconnect: { actionId: disconnectActionId(c.server), label: 'Disconnect', style: 'danger' as const },
    })),
    open: servers.filter((s) => !mine.some((c) => c.server === s)),
  };
}

/**
 * The App Home with its Connections section (DESIGN.md "Signing in to MCP servers"): what `surfaces` shows, plus
 * the person's own sign-ins with Disconnect, which forgets their tokens as `/connections disconnect` does. A person
 * only ever sees and disconnects their own (the principal is whoever opened the Home or clicked).
 */
export function connectionsOnHome(
  surfaces: Pick<SurfaceSink, 'onHomeOpened' | 'onScheduleForm'>,
  deps: ConnectionsCommandDeps,
): Pick<SurfaceSink, 'onHomeOpened' | 'onScheduleForm' | 'onDisconnect'> {
  return {
    onScheduleForm: (submission) => surfaces.onScheduleForm(submission),
    async onHomeOpened(request) {
      const [model, connections] = await Promise.all([
        surfaces.onHomeOpened(request),
        buildHomeConnections(request, deps),
      ]);
      return connections ? { ...model, connections } : model;
    },
    onDisconnect: (request) => disconnectConnection(deps, `${request.platform}:${request.userId}`, request.server),
  };
}
