import { z } from 'zod';
import type { InboundSink } from '../../src/chat/inbound.js';
import type { Logger } from '../../src/logger.js';
import type { EventRoutes } from './event-routes.js';
import { isDmChannel, toConversationRef } from './slack-thread-id.js';

/** Streams remembered as stopped by Slack; past this the oldest half is forgotten (their previews ended long ago). */
const MAX_STOPPED = 10_000;

/** `agent_session_stopped`: a person pressed Slack's Stop on a session that was `processing` (no `team_id` inside the event). */
export const sessionStoppedSchema = z.object({
  channel: z.string().min(1),
  thread_ts: z.string().min(1),
  user: z.string().min(1),
  /** The streams in flight that Slack stopped itself: appending to them or ending them fails from now on. */
  streaming_message_ts: z.array(z.string()).optional().default([]),
  event_ts: z.string().optional(),
});

/** The streams Slack stopped itself, so this process's previews of them make no more calls. */
export interface StoppedStreams {
  add(channelId: string, ts: string): void;
  has(channelId: string, ts: string): boolean;
}

/** The streams Slack stopped, remembered in this process so their previews stop calling (bounded: MAX_STOPPED). */
export function createStoppedStreams(): StoppedStreams {
  const stopped = new Set<string>();
  return {
    add(channelId, ts) {
      if (stopped.size >= MAX_STOPPED) for (const key of [...stopped].slice(0, MAX_STOPPED / 2)) stopped.delete(key);
      stopped.add(`${channelId}/${ts}`);
    },
    has: (channelId, ts) => stopped.has(`${channelId}/${ts}`),
  };
}

/**
 * Wires `agent_session_stopped`: the streams Slack stopped are closed here (no call reaches them again; a process
 * that holds one elsewhere learns it from Slack's answer), and the stop goes to the core, which stops the thread's
 * run as `/stop` there would — whichever process runs it — if the person may, and shows the session idle.
 */
export function registerAgentSessionEvents(
  routes: EventRoutes,
  deps: { sink: () => InboundSink | null; stoppedStreams: StoppedStreams; logger: Logger },
): void {
  routes.on('agent_session_stopped', async ({ event, body, context }) => {
    const parsed = sessionStoppedSchema.safeParse(event);
    if (!parsed.success) {
      deps.logger.warn({ issues: parsed.error.issues }, 'ignoring a malformed agent_session_stopped event');
      return;
    }
    const stop = parsed.data;
    for (const ts of stop.streaming_message_ts) deps.stoppedStreams.add(stop.channel, ts);
    const envelope = body as { team_id?: unknown; event_id?: unknown };
    const teamId = context.teamId ?? (typeof envelope.team_id === 'string' ? envelope.team_id : '');
    const conversation = toConversationRef({ teamId, channelId: stop.channel, threadTs: stop.thread_ts });
    if (!conversation) {
      deps.logger.warn(
        { team: teamId, channel: stop.channel, threadTs: stop.thread_ts },
        'ignoring an agent_session_stopped event for a thread that is not a Slack thread',
      );
      return;
    }
    const eventId =
      stop.event_ts ?? (typeof envelope.event_id === 'string' ? envelope.event_id : `${stop.thread_ts}/${stop.user}`);
    await deps.sink()?.onSessionStop?.({
      conversation,
      userId: stop.user,
      eventId,
      ...(isDmChannel(stop.channel) ? { direct: true } : {}),
    });
  });
}
