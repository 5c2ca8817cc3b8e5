import type { InboundSink } from './inbound.js';
import type { SurfaceSink } from './surface-sink.js';
import type { ConnectionState } from './working-status.js';

/**
 * The part of an adapter the composition root holds: connecting it, disconnecting it, and asking how the
 * connection stands (`/healthz`, the web console). It carries nothing out to a platform.
 */
export interface AdapterLifecycle {
  /** Platform name, the first part of every ConversationRef it produces. */
  readonly platform: string;
  /** Connects and starts delivering inbound events; `surfaces` absent: no App Home, no forms. */
  start(sink: InboundSink, surfaces?: SurfaceSink): Promise<void>;
  /** Disconnects; pending outbound messages are flushed first where possible. */
  stop(): Promise<void>;
  /** The live connection state for `/healthz`. */
  connectionState(): ConnectionState;
}
