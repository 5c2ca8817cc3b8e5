import type { Logger } from '../../src/logger.js';
import { assistantThreadEventSchema, type AssistantThreads } from './assistant-threads.js';
import type { EventRoutes } from './event-routes.js';

/**
 * Wires Slack's assistant events: `assistant_thread_started` (a person opened the app's assistant
 * view) sets the suggested prompts; `assistant_thread_context_changed` (they moved to another channel
 * with the view open) needs nothing, since read_channel reads the conversation's own channel, but it is
 * subscribed so Slack does not keep redelivering it. Messages in these threads arrive as ordinary DM
 * `message` events and go through the usual handlers.
 */
export function registerAssistantEvents(
  routes: EventRoutes,
  deps: { assistant: AssistantThreads; logger: Logger },
): void {
  routes.on('assistant_thread_started', async ({ event }) => {
    const parsed = assistantThreadEventSchema.safeParse(event);
    if (!parsed.success) {
      deps.logger.warn({ issues: parsed.error.issues }, 'ignoring a malformed assistant_thread_started event');
      return;
    }
    const { channel_id, thread_ts } = parsed.data.assistant_thread;
    await deps.assistant.started(channel_id, thread_ts);
  });
  routes.on('assistant_thread_context_changed', async ({ event }) => {
    const parsed = assistantThreadEventSchema.safeParse(event);
    deps.logger.debug(
      { context: parsed.success ? parsed.data.assistant_thread.context : null },
      'assistant thread context changed',
    );
  });
}
