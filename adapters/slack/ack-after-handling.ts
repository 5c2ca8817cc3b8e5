import type { App, Receiver, ReceiverEvent } from '@slack/bolt';
import { z } from 'zod';
import type { Logger } from '../../src/logger.js';

/** Events whose listener stores a person's message (or their Stop on a session): Slack must not hear "received" before that. */
const STORED_EVENT_TYPES = new Set(['message', 'app_mention', 'agent_session_stopped']);

const eventBodySchema = z.object({ type: z.literal('event_callback'), event: z.object({ type: z.string() }) });

export interface AckAfterHandlingOptions {
  /** Acknowledge anyway after this long (Slack redelivers events not acknowledged within 3 s). */
  deadlineMs: number;
  logger: Logger;
}

/**
 * Wraps a Bolt receiver (HTTP or Socket Mode alike) so a message event is acknowledged only once
 * the app's listeners finished — Errand's listener resolves once the message is stored — instead
 * of before they start, as Bolt does for every event. Slack never redelivers an acknowledged
 * event, so acknowledging first loses a message for good when the process dies in between.
 * Commands, actions and other events keep Bolt's own acknowledgement.
 */
export function ackAfterHandling(inner: Receiver, options: AckAfterHandlingOptions): Receiver {
  return {
    init(app: App) {
      const deferring: App = Object.create(app) as App;
      deferring.processEvent = async (event: ReceiverEvent) => {
        const body = eventBodySchema.safeParse(event.body);
        if (!body.success || !STORED_EVENT_TYPES.has(body.data.event.type)) return app.processEvent(event);
        let requested: { response: unknown } | null = null;
        let sent = false;
        const send = async () => {
          if (sent || requested === null) return;
          sent = true;
          await event.ack(requested.response);
        };
        const timer = setTimeout(() => {
          options.logger.warn(
            { deadlineMs: options.deadlineMs },
            'storing a Slack event took too long; acknowledging it before it was stored',
          );
          void send().catch((err: unknown) => options.logger.warn({ err }, 'acknowledging a Slack event failed'));
        }, options.deadlineMs);
        try {
          await app.processEvent({ ...event, ack: async (response?: unknown) => void (requested = { response }) });
        } finally {
          clearTimeout(timer);
          await send();
        }
      };
      inner.init(deferring);
    },
    start: (...args: unknown[]) => inner.start(...args),
    stop: (...args: unknown[]) => inner.stop(...args),
  };
}
