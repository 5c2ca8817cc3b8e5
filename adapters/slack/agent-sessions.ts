import { z } from 'zod';
import type { SessionState, SessionUpdate } from '../../src/chat/agent-session.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import type { Logger } from '../../src/logger.js';
import type { SlackCall } from './slack-call.js';
import { platformError } from './slack-api.js';

/** Slack's agent session statuses (`agents.sessions.setStatus`, `chat.stopStream`'s `session_status`). */
export type AgentSessionStatus = 'active' | 'processing' | 'suspended' | 'closed';

/** The status each state of the core's work shows as. */
export const SESSION_STATUS: Readonly<Record<SessionState, AgentSessionStatus>> = {
  working: 'processing',
  waiting: 'suspended',
  idle: 'active',
};

/**
 * Slack's answers that mean this app cannot manage agent sessions in the workspace at all: an old workspace or
 * API (`unknown_method`), a token that may not (`not_allowed_token_type`, `missing_scope`), an app that is not
 * declared an agent. The last one's wording is not in the references we could read; `feature_not_enabled` and
 * `not_an_agent` are taken as that answer too.
 */
export const NOT_AN_AGENT: ReadonlySet<string> = new Set([
  'unknown_method',
  'not_allowed_token_type',
  'missing_scope',
  'feature_not_enabled',
  'not_an_agent',
]);

/** Slack caps a session title (`agents.sessions.rename`: 1–200 characters). */
const MAX_TITLE = 200;
/** Threads renamed by this process, kept to bound memory (forgotten all at once past it, as other caches here are). */
const MAX_RENAMED = 10_000;

/** The part of `agents.sessions.setStatus`'s answer Errand reads: the session's title (empty or null: it has none). */
const setStatusAnswer = z.object({ title: z.string().nullable().optional() }).passthrough();

/** Where a thread's session is: its workspace, channel and root ts. */
export interface SessionPlace {
  readonly teamId: string;
  readonly channelId: string;
  readonly threadTs: string;
}

export interface AgentSessions {
  /** The core's state of the thread's work: sent as a status at once if it changed; returns at once. */
  set(conversation: ConversationRef, update: SessionUpdate): void;
  /**
   * Runs `call`, a `chat.stopStream` of a stream in this thread, in order with the thread's status calls, with the
   * status it is to leave the session in (`session_status`; Slack's default is `active`): null when this process
   * shows no session there (or the workspace has none), so nothing is passed.
   */
  streamEnd<T>(place: SessionPlace, call: (status: AgentSessionStatus | null) => Promise<T>): Promise<T>;
  /** Waits for the calls in flight (on shutdown). */
  stopAll(): Promise<void>;
}

interface ThreadSession {
  /** What the core last said. */
  desired: AgentSessionStatus;
  /** What Slack last accepted from this process; null: nothing yet. */
  sent: AgentSessionStatus | null;
  /** The principal and title of the run that starts, for the call that may create the session. */
  start: { principalUserId?: string; title?: string } | null;
  /** The thread's calls, one after the other: a late `processing` must never land after the `active` that followed it. */
  chain: Promise<void>;
}

/**
 * Slack's Agent Sessions for Errand's threads: `agents.sessions.setStatus` follows the core's state (working →
 * `processing`, titled and owned by the principal when the call creates the session; waiting for a person →
 * `suspended`; idle → `active`), only changes reach Slack, in order per thread, and a stream's end carries the
 * same status so it never undoes one. A session that has no title yet gets the request's through
 * `agents.sessions.rename`. A workspace where the app is no agent answers with one of NOT_AN_AGENT: that is
 * logged once and the methods are not called there again; every other failure is logged, never thrown.
 */
export function createAgentSessions(deps: { call: SlackCall; logger: Logger }): AgentSessions {
  const threads = new Map<string, ThreadSession>();
  const refused = new Map<string, string>();
  const renamed = new Set<string>();
  const keyOf = (p: SessionPlace) => `${p.teamId}/${p.channelId}/${p.threadTs}`;
  const where = (p: SessionPlace) => ({ channel_id: p.channelId, thread_ts: p.threadTs });

  /** True when Slack said this workspace has no agent sessions (logged the first time). */
  const notAnAgent = (place: SessionPlace, method: string, err: unknown): boolean => {
    const code = platformError(err);
    if (code === null || !NOT_AN_AGENT.has(code)) return false;
    if (!refused.has(place.teamId)) {
      refused.set(place.teamId, code);
      deps.logger.warn(
        { team: place.teamId, error: code, method },
        `Slack answered ${code} to ${method}: this app is not an agent in this workspace, so Errand shows no agent sessions (and no Slack Stop on them) there and keeps its status line, reaction and Stop button; declare the agent in the app's manifest (see the README) and restart to have them`,
      );
    }
    return true;
  };

  /** Adds a step to the thread's chain; the thread is forgotten once idle and nothing more is queued. */
  const inOrder = <T>(key: string, session: ThreadSession, step: () => Promise<T>): Promise<T> => {
    const result = session.chain.then(step);
    const next = result.then(
      () => undefined,
      () => undefined,
    );
    session.chain = next;
    void next.then(() => {
      if (
        threads.get(key) === session &&
        session.chain === next &&
        session.desired === 'active' &&
        session.sent === 'active'
      )
        threads.delete(key);
    });
    return result;
  };

  const send = async (place: SessionPlace, session: ThreadSession) => {
    const status = session.desired;
    if (session.sent === status || refused.has(place.teamId)) return;
    const start = status === 'processing' ? session.start : null;
    const title = start?.title ? start.title.slice(0, MAX_TITLE) : undefined;
    try {
      const answer = await deps.call(
        'agents.sessions.setStatus',
        {
          ...where(place),
          status,
          ...(title ? { title } : {}),
          ...(start?.principalUserId ? { initiator_user_id: start.principalUserId } : {}),
        },
        setStatusAnswer,
      );
      session.sent = status;
      if (start) session.start = null;
      const key = keyOf(place);
      // A session Slack says has no title (opened by the person, or by a stream) is named after the request; an
      // answer that does not say is taken as titled, so a name someone gave the session is never overwritten.
      if (title && answer.title !== undefined && !answer.title && !renamed.has(key)) {
        if (renamed.size >= MAX_RENAMED) renamed.clear();
        renamed.add(key);
        await deps.call('agents.sessions.rename', { ...where(place), title }, z.unknown());
      }
    } catch (err) {
      if (!notAnAgent(place, 'agents.sessions.setStatus', err))
        deps.logger.warn(
          { err, channel: place.channelId, threadTs: place.threadTs, status },
          'setting the agent session status failed',
        );
    }
  };

  return {
    set(conversation, update) {
      if (conversation.thread === null) return;
      const place: SessionPlace = {
        teamId: conversation.workspace,
        channelId: conversation.channel,
        threadTs: conversation.thread,
      };
      if (refused.has(place.teamId)) return;
      const key = keyOf(place);
      const status = SESSION_STATUS[update.state];
      const session = threads.get(key) ?? { desired: status, sent: null, start: null, chain: Promise.resolve() };
      threads.set(key, session);
      session.desired = status;
      if (update.principalUserId || update.title)
        session.start = {
          ...(update.principalUserId ? { principalUserId: update.principalUserId } : {}),
          ...(update.title ? { title: update.title } : {}),
        };
      void inOrder(key, session, () => send(place, session));
    },
    streamEnd(place, call) {
      const key = keyOf(place);
      const session = threads.get(key);
      if (!session || refused.has(place.teamId)) return call(null);
      return inOrder(key, session, async () => {
        const status = session.desired;
        const result = await call(status);
        session.sent = status;
        return result;
      });
    },
    async stopAll() {
      for (;;) {
        const pending = [...threads.values()].map((s) => s.chain);
        await Promise.all(pending);
        // Done once no thread queued anything while these were waited for.
        if ([...threads.values()].every((s) => pending.includes(s.chain))) return;
      }
    },
  };
}
