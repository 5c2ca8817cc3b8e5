import type { Logger } from '../../logger.js';
import type { RunStore } from '../../runs/run-store.js';
import type { ConnectNotice } from '../oauth-tool-server.js';
import type { CallbackOutcome } from './authorization-callback.js';
import type { OAuthWebServerOptions } from './oauth-web-server.js';

export interface SignInNotesDeps {
  readonly runs: Pick<RunStore, 'get'>;
  readonly notify: ConnectNotice;
  readonly logger: Logger;
}

type Ended = Exclude<CallbackOutcome, { kind: 'connected' | 'unknown' }>;

const ENDED: Record<Ended['kind'], (server: string) => string> = {
  denied: (s) => `You did not allow access to **${s}**, so I cannot use it for you. Ask again if you change your mind.`,
  expired: (s) => `That Connect link for **${s}** had expired (links work for 10 minutes). Ask again and I will send a new one.`,
  used: (s) => `That Connect link for **${s}** was already used. Ask again and I will send a new one if you still need it.`,
  failed: (s) => `Connecting **${s}** failed at its sign-in service. Try again later.`,
};

/**
 * What the person reads in the thread after the browser came back to `/oauth/callback`: the sign-in was bound to
 * the run that asked for it, so the note goes, privately, to its principal in that run's conversation. The
 * callback may land on any process: the run is read from the database. A sign-in without a run says nothing.
 */
export function signInNotes(deps: SignInNotesDeps): Pick<OAuthWebServerOptions, 'onConnected' | 'onNotConnected'> {
  const tell = async (principal: string, runId: string | null, text: string) => {
    if (runId === null) return;
    const run = await deps.runs.get(runId);
    const userId = principal.slice(principal.indexOf(':') + 1);
    if (!run || userId === '') return;
    await deps.notify(run.conversationId, userId, text).catch((err: unknown) => deps.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'recording a sign-in note failed'));
  };
  return {
    onConnected: (principal, server, runId) => tell(principal, runId, `Connected **${server}** — ask me again and I will use it for you.`),
    onNotConnected: (outcome) => tell(outcome.principal, outcome.runId, ENDED[outcome.kind](outcome.server)),
  };
}
