import type { InboundSink } from '../chat/inbound.js';
import type { HomeRequest, ScheduleFormSubmission } from '../chat/schedule-form.js';
import type { Metrics } from './metrics.js';

/**
 * The sink an adapter delivers to, counting each event for `errand_inbound_events_total` before
 * the dispatcher sees it. Counted as delivered, so platform redeliveries show up too.
 */
export function countingSink(sink: InboundSink, platform: string, metrics: Metrics): InboundSink {
  return {
    onMessage(message) {
      metrics.inbound(platform);
      return sink.onMessage(message);
    },
    onCommand(command) {
      metrics.inbound(platform);
      return sink.onCommand(command);
    },
    onAction(action) {
      metrics.inbound(platform);
      return sink.onAction(action);
    },
    ...(sink.onHomeOpened
      ? {
          onHomeOpened: (request: HomeRequest) => {
            metrics.inbound(platform);
            return sink.onHomeOpened!(request);
          },
        }
      : {}),
    ...(sink.onScheduleForm
      ? {
          onScheduleForm: (submission: ScheduleFormSubmission) => {
            metrics.inbound(platform);
            return sink.onScheduleForm!(submission);
          },
        }
      : {}),
    knowsConversation(ref) {
      return sink.knowsConversation(ref);
    },
  };
}
