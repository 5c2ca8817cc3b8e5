import type { InboundSink } from '../chat/inbound.js';
import type { SurfaceSink } from '../chat/surface-sink.js';
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
    knowsConversation(ref) {
      return sink.knowsConversation(ref);
    },
    ...(sink.onSessionStop
      ? {
          onSessionStop(stop) {
            metrics.inbound(platform);
            return sink.onSessionStop!(stop);
          },
        }
      : {}),
  };
}

/** The App Home and form events, counted like the others. */
export function countingSurfaces(surfaces: SurfaceSink, platform: string, metrics: Metrics): SurfaceSink {
  return {
    onHomeOpened(request) {
      metrics.inbound(platform);
      return surfaces.onHomeOpened(request);
    },
    onScheduleForm(submission) {
      metrics.inbound(platform);
      return surfaces.onScheduleForm(submission);
    },
    onElicitation(event) {
      metrics.inbound(platform);
      return surfaces.onElicitation(event);
    },
    onDisconnect(request) {
      metrics.inbound(platform);
      return surfaces.onDisconnect(request);
    },
    // Read once at a start, not a person's event: not counted.
    ...(surfaces.carriedOverElicitations
      ? { carriedOverElicitations: surfaces.carriedOverElicitations.bind(surfaces) }
      : {}),
  };
}
