import type { ConversationRef } from '../../chat/conversation-ref.js';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { ConnectionStore } from '../connection-store.js';
import type { Logger } from '../../logger.js';
import type { OAuthBinding } from '../mcp/oauth-tool-server.js';
import { startOAuth, type OAuthRuntime } from '../mcp/oauth-setup.js';
import { signInNotes } from '../mcp/sign-in-notes.js';
import type { Metrics } from '../../metrics/metrics.js';
import type { Outbox } from '../../outbox/outbox.js';
import type { RunStore } from '../../run-records/run-store.js';
import type { RunCoordinator } from '../../runs/runtime/run-coordinator.js';
import { signInWaits } from './sign-in-waits.js';

export interface SignInStartDeps {
  readonly config: Pick<Config, 'PUBLIC_URL' | 'WEB_PORT' | 'ERRAND_SECRET_KEY' | 'file'>;
  readonly connections: ConnectionStore;
  readonly runs: RunStore;
  readonly coordinator: Pick<RunCoordinator, 'answer'>;
  readonly outbox: Pick<Outbox, 'recordSecret'>;
  refOf(conversationId: string): ConversationRef | null;
  /** Whether a secret notice reaches its person privately on this platform (outbox/secret-notice.ts `reachesPrivately`). */
  privately(platform: string): boolean;
  /** The MCP hub: bound to the sign-in service, and told of new connections. */
  readonly tools?: {
    bindOAuth?(binding: OAuthBinding): void;
    connected?(principal: string, server: string): Promise<void>;
  };
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** False: the sign-in routes do not listen on WEB_PORT themselves (the web console serves that port and mounts them). */
  readonly listen?: boolean;
}

/**
 * Starts per-person OAuth (null when no server uses it) wired to the runs that wait on it: sign-in notices go only to
 * their person (a DM where the platform's notices are public), the callback opens the person's session and ends the
 * run's wait on whichever process it lands, an expired link gets a fresh one, and the tool servers are bound to it.
 */
export async function startSignIns(deps: SignInStartDeps): Promise<OAuthRuntime | null> {
  const { runs, logger } = deps;
  let oauth: OAuthRuntime | null = null;
  const notify = (conversationId: string, userId: string, text: string) =>
    deps.outbox.recordSecret(conversationId, userId, text);
  const relink = async (principal: string, server: string, runId: string) => {
    const fresh = await oauth?.connections.tokenFor(principal, server, { runId });
    return fresh?.kind === 'authorize' ? fresh.url : null;
  };
  const connected = async (principal: string, server: string) => deps.tools?.connected?.(principal, server);
  const notes = signInNotes({
    runs,
    notify,
    logger,
    waits: signInWaits({ runs, coordinator: deps.coordinator }),
    relink,
    connected,
  });
  oauth = await startOAuth({
    config: deps.config,
    store: deps.connections,
    clock: deps.clock,
    logger,
    metrics: deps.metrics,
    ...notes,
    ...(deps.listen === false ? { listen: false } : {}),
  });
  const privateIn = (conversationId: string) => {
    const ref = deps.refOf(conversationId);
    return ref !== null && deps.privately(ref.platform);
  };
  if (oauth) deps.tools?.bindOAuth?.({ connections: oauth.connections, notify, privateIn });
  return oauth;
}
