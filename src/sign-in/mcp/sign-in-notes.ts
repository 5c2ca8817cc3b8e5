import type { Logger } from '../../logger.js';
import type { SignInEnd } from '../../records/stored-values.js';
import type { RunStore } from '../../run-records/run-store.js';
import { connectNoticeText, type ConnectNotice } from './oauth-sign-in.js';
import type { CallbackOutcome } from './authorization-callback.js';
import type { OAuthWebServerOptions } from './oauth-web-server.js';

/** The runs parked on a sign-in (runtime/sign-in/sign-in-waits.ts): the callback ends their wait, on whichever process it lands. */
export interface SignInWaits {
  /**
   * Ends run `runId`'s wait for `server` with `end`: recorded with the run (so it survives a crash), then resumed
   * here or by the next process with a free slot. False when that run does not wait on `server` (any more).
   */
  end(runId: string, server: string, end: SignInEnd): Promise<boolean>;
}

export interface SignInNotesDeps {
  readonly runs: Pick<RunStore, 'get' | 'waitingFor'>;
  readonly notify: ConnectNotice;
  readonly logger: Logger;
  /** Absent: nothing waits on a sign-in (the notes alone). */
  readonly waits?: SignInWaits;
  /** The tool servers hear of a connection before its waiting run goes on (the person's session opens, tools listed). */
  readonly connected?: (principal: string, server: string) => Promise<void>;
  /** A fresh Connect link for the same run, when the one opened had expired while the run still waits; null: none. */
  readonly relink?: (principal: string, server: string, runId: string) => Promise<string | null>;
}

type Ended = Exclude<CallbackOutcome, { kind: 'connected' | 'unknown' }>;

const ENDED: Record<Ended['kind'], (server: string) => string> = {
  denied: (s) => `You did not allow access to **${s}**, so I cannot use it for you. Ask again if you change your mind.`,
  expired: (s) =>
    `That Connect link for **${s}** had expired (links work for 10 minutes). Ask again and I will send a new one.`,
  used: (s) =>
    `That Connect link for **${s}** was already used. Ask again and I will send a new one if you still need it.`,
  failed: (s) => `Connecting **${s}** failed at its sign-in service. Try again later.`,
};

/** Most runs of one person one sign-in resumes besides the one its link was made for. */
const MAX_OTHER_WAITS = 50;

/** What the person reads when the run that asked was waiting for this sign-in and goes on now. */
const RESUMED: Record<SignInEnd, (server: string) => string> = {
  connected: (s) => `Connected **${s}** — carrying on with your request.`,
  denied: (s) => `You did not allow access to **${s}**, so I am going on without it.`,
  failed: (s) => `Connecting **${s}** failed at its sign-in service, so I am going on without it. Try again later.`,
};

/**
 * What follows the browser's return to `/oauth/callback`. The sign-in was bound to the run that asked for it: when
 * that run is parked on it, its wait ends (connected: the waiting call runs with the new token; declined or failed:
 * the model is told), and the principal is told privately in that run's conversation. A connection also ends the wait
 * of every other run of the person parked on the same server (a second run found the sign-in gone on a session the
 * first opened, or asked before the first link was used): one sign-in serves them all. The callback may land on any
 * process: the runs are read from the database. A sign-in without a run and nobody waiting says nothing.
 */
export function signInNotes(deps: SignInNotesDeps): Pick<OAuthWebServerOptions, 'onConnected' | 'onNotConnected'> {
  const tell = async (conversationId: string, principal: string, text: string) => {
    const userId = principal.slice(principal.indexOf(':') + 1);
    if (userId === '') return;
    await deps
      .notify(conversationId, userId, text)
      .catch((err: unknown) =>
        deps.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'recording a sign-in note failed'),
      );
  };
  const runOf = async (runId: string | null) => (runId === null ? null : deps.runs.get(runId));
  /** Ends the run's wait when it waits on this sign-in; false when it does not (or the wait could not be ended). */
  const endWait = async (runId: string, server: string, end: SignInEnd): Promise<boolean> => {
    if (!deps.waits) return false;
    try {
      return await deps.waits.end(runId, server, end);
    } catch (err) {
      deps.logger.error(
        { err: err instanceof Error ? err.message : String(err), runId },
        'resuming a run after its sign-in failed',
      );
      return false;
    }
  };
  const waitsOn = (run: Awaited<ReturnType<typeof runOf>>, server: string) =>
    run?.status === 'waiting_user' && run.question?.signIn?.server === server;
  return {
    async onConnected(principal, server, runId) {
      await deps
        .connected?.(principal, server)
        .catch((err: unknown) =>
          deps.logger.warn(
            { err: err instanceof Error ? err.message : String(err), server },
            'opening the session of a new connection failed',
          ),
        );
      const run = await runOf(runId);
      if (run) {
        const resumed = await endWait(run.id, server, 'connected');
        await tell(
          run.conversationId,
          principal,
          resumed ? RESUMED.connected(server) : `Connected **${server}** — ask me again and I will use it for you.`,
        );
      }
      const at = principal.indexOf(':');
      const others = await deps.runs
        .waitingFor(principal.slice(0, at), principal.slice(at + 1), MAX_OTHER_WAITS)
        .catch((err: unknown) => {
          deps.logger.warn(
            { err: err instanceof Error ? err.message : String(err), server },
            'looking for other runs waiting on a sign-in failed',
          );
          return [];
        });
      for (const other of others) {
        if (other.id === runId || other.question?.signIn?.server !== server) continue;
        if (await endWait(other.id, server, 'connected'))
          await tell(other.conversationId, principal, RESUMED.connected(server));
      }
    },
    async onNotConnected(outcome) {
      const run = await runOf(outcome.runId);
      if (!run) return;
      const { server, principal, kind } = outcome;
      if (kind === 'denied' || kind === 'failed') {
        if (await endWait(run.id, server, kind)) return tell(run.conversationId, principal, RESUMED[kind](server));
      } else if (kind === 'expired' && waitsOn(run, server) && deps.relink) {
        const url = await deps.relink(principal, server, run.id).catch(() => null);
        if (url !== null)
          return tell(
            run.conversationId,
            principal,
            `That Connect link had expired (links work for 10 minutes); here is a new one. ${connectNoticeText(server, url)}`,
          );
      }
      await tell(run.conversationId, principal, ENDED[kind](server));
    },
  };
}
