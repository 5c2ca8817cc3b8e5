import type { AdapterLifecycle } from './adapter-lifecycle.js';
import type { AdapterPresence } from './adapter-presence.js';
import type { Delivery } from './delivery.js';
import type { PlatformReads } from './platform-reads.js';

export type { AdapterCapabilities } from './adapter-capabilities.js';
export type { SessionCapability, SessionState, SessionStop, SessionUpdate } from './agent-session.js';
export type { AnswerStream, AnswerStreamHooks, PreviewMessageSlot, StreamEnd } from './answer-stream.js';
export type { OutboundMessage, PostedMessage } from './outbound-message.js';
export type { RunStep, RunStepStatus } from './run-step.js';
export type { ConnectionState, WorkingActivity, WorkingStatus } from './working-status.js';
export type { UnrecordedPreview } from './delivery.js';

/**
 * A whole platform adapter, as `main.ts` builds it and the composition root (src/app*.ts) takes it apart: its
 * lifecycle for starting and stopping, its delivery for the outbox alone, its presence for the presence port,
 * its reads for whoever reads. Every part names only what its holder needs, so the compiler keeps content to
 * one way out: a module that is handed a narrow part has no `postMessage` in reach.
 */
export type ChatAdapter = AdapterLifecycle & Delivery & AdapterPresence & PlatformReads;
