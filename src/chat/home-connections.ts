import type { OutboundButton } from './outbound-button.js';

/** The Connections section of the App Home (DESIGN.md "Signing in to MCP servers"): the person's sign-ins, each with Disconnect. */
export interface HomeConnections {
  readonly connected: readonly HomeConnection[];
  /** The `auth: "oauth"` servers the person has not connected (they get a Connect link when a request needs one). */
  readonly open: readonly string[];
}

export interface HomeConnection {
  readonly server: string;
  /** Markdown: the server, the account when known, since when, the scopes. Never a token. */
  readonly text: string;
  readonly disconnect: OutboundButton;
}

/** A Disconnect click on the App Home: the person forgets their own tokens for `server`. */
export interface DisconnectRequest {
  readonly platform: string;
  readonly workspace: string;
  readonly userId: string;
  readonly server: string;
}

const PREFIX = 'errand:connections:disconnect:';

/** The Disconnect button's action id: the server's name rides on it, so the click needs no state. */
export function disconnectActionId(server: string): string {
  return `${PREFIX}${server}`;
}

/** The server a Disconnect click names; null when the action id is not one. */
export function parseDisconnectActionId(actionId: string): string | null {
  return actionId.startsWith(PREFIX) && actionId.length > PREFIX.length ? actionId.slice(PREFIX.length) : null;
}

/** Matches Disconnect action ids (for registering the click handler). */
export const DISCONNECT_ACTION_PATTERN = /^errand:connections:disconnect:/;
