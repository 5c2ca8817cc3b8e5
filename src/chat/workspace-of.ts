import type { ChannelRef } from './conversation-ref.js';

/**
 * What starts a workspace id that names no shared workspace, only a person's own space outside every team or
 * server: Discord's `@me`, the "guild" of direct messages. Adapters encode such places with it; nothing else does.
 */
export const PERSONAL_WORKSPACE_MARK = '@';

/**
 * The shared workspace a channel belongs to (`platform:workspace`), or null when it belongs to none — a Discord
 * direct message, which is in no server. What is kept "for the workspace" (workspace memories) reaches only runs
 * in that very workspace; were every DM given one `@me` workspace, what an admin of one server stored in their DM
 * would reach the DMs of every person of every server.
 */
export function sharedWorkspaceOf(place: Pick<ChannelRef, 'platform' | 'workspace'>): string | null {
  return place.workspace.startsWith(PERSONAL_WORKSPACE_MARK) ? null : `${place.platform}:${place.workspace}`;
}
