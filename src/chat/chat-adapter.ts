import type { AdapterCapabilities } from './adapter-capabilities.js';
import type { ChannelRef, ConversationRef } from './conversation-ref.js';
import type { InboundSink } from './inbound.js';
import type { OutboundMessage, PostedMessage } from './outbound-message.js';
import type { SurfaceSink } from './surface-sink.js';
import type { ConnectionState, WorkingStatus } from './working-status.js';

export type { AdapterCapabilities, UnrecordedPreview } from './adapter-capabilities.js';
export type { SessionCapability, SessionState, SessionStop, SessionUpdate } from './agent-session.js';
export type { AnswerStream, AnswerStreamHooks, PreviewMessageSlot, StreamEnd } from './answer-stream.js';
export type { OutboundMessage, PostedMessage } from './outbound-message.js';
export type { RunStep, RunStepStatus } from './run-step.js';
export type { ConnectionState, WorkingActivity, WorkingStatus } from './working-status.js';

/**
 * The platform port: what the core needs from every platform. Every method may throw AdapterError;
 * outbound calls are rate limited and queued per channel by the adapter, and resolve once the platform
 * accepted them, in order. What only some platforms do is in `capabilities`.
 */
export interface ChatAdapter {
  /** Platform name, the first part of every ConversationRef it produces. */
  readonly platform: string;
  /** Hard limit of one message's text; the outbox splits answers to fit, the adapter splits anything longer. */
  readonly maxMessageLength: number;
  /** Optional features, each present only where the platform has it. */
  readonly capabilities: AdapterCapabilities;
  /** Connects and starts delivering inbound events; `surfaces` absent: no App Home, no forms. */
  start(sink: InboundSink, surfaces?: SurfaceSink): Promise<void>;
  /** Disconnects; pending outbound messages are flushed first where possible. */
  stop(): Promise<void>;
  /** The live connection state for `/healthz`. */
  connectionState(): ConnectionState;
  /** Posts into the conversation (its thread when it has one); splits long text. */
  postMessage(conversation: ConversationRef, message: OutboundMessage): Promise<PostedMessage>;
  /** Replaces a posted message's text (and buttons: omitted = removed). */
  editMessage(conversation: ConversationRef, messageId: string, message: OutboundMessage): Promise<void>;
  /** Shows (status) or clears (null) the working indicator; returns at once, never delays a reply. */
  setWorking(conversation: ConversationRef, status: WorkingStatus | null): Promise<void>;
  /**
   * Opens a thread rooted at a channel message and returns its conversation. Where no thread can
   * be opened there (a DM, threads turned off) it opens none and returns the channel's conversation.
   */
  openThread(channel: ChannelRef, messageId: string, name: string): Promise<ConversationRef>;
  /**
   * Whether `postEphemeral` is seen by that person alone. False where it falls back to a post others in
   * the conversation can read (Discord outside an interaction): secrets such as a sign-in link are never
   * sent that way.
   */
  readonly privateNotices: boolean;
  /** A notice only `userId` sees (falls back to a normal post where unsupported). */
  postEphemeral(conversation: ConversationRef, userId: string, text: string): Promise<void>;
}
