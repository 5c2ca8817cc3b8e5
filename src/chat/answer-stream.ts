import type { RunStep } from './run-step.js';

/**
 * How a preview ends without its answer: `stopped` (a person stopped the run, or the model failed: the
 * text so far with a "(stopped)" mark, open steps marked as stopped), `discard` (the process is shutting
 * down and the answer will be made again after the restart: what it showed is deleted), `done` (it showed
 * only the run's steps and the run went on elsewhere, e.g. parked on an approval: kept as shown, steps
 * still running closed as done).
 */
export type StreamEnd = 'stopped' | 'discard' | 'done';

/**
 * A live preview of an answer the model is still writing (STREAMING). The preview is not the answer's
 * record: the outbox still records the answer with its step, and when it delivers that record it asks
 * the stream to `finish` instead of posting anew, so the text appears once. Every platform call an
 * implementation makes goes through the adapter's per-channel queue, and appends that arrive while one
 * is in flight are coalesced into the next update.
 */
export interface AnswerStream {
  /** Adds text as the model writes it; returns at once (updates are paced and coalesced). */
  append(text: string): void;
  /**
   * Makes the preview show exactly the final answer `text`, which the outbox posts as `pieces`, and
   * resolves with the platform id showing each piece, in order (one message may show several: then
   * their ids repeat). May be called again after it failed; a no-op after `stop`, resolving `[]`.
   */
  finish(text: string, pieces: readonly string[]): Promise<readonly string[]>;
  /**
   * Ends the preview (see `StreamEnd`; default `stopped`); nothing is edited afterwards. No-op once finishing,
   * except `discard` where the stream can cut its finish short: the finish then resolves `[]`.
   */
  stop(how?: StreamEnd): Promise<void>;
  /**
   * Shows the run's steps inside the preview, above the answer text (Slack's task cards), each as last
   * updated; returns at once (updates are paced and coalesced like appends). Absent where the platform
   * shows steps with the working status instead; a preview may show none after all (the workspace
   * refused them), and the status line then says what the run does, as without steps.
   */
  showSteps?(steps: readonly RunStep[]): void;
}

/** What the runtime hears from a live preview. */
export interface AnswerStreamHooks {
  /**
   * A new platform message of the preview is about to be posted (the first one, or one past the split
   * point). Awaited before the request leaves: the runtime records the intent durably and answers with
   * the idempotency key the post carries, so a message whose post the process never heard back about
   * (killed within that round trip) can still be found and taken back.
   */
  beforeMessage(): Promise<PreviewMessageSlot>;
}

/** The durable record of one preview message, made before its post leaves. */
export interface PreviewMessageSlot {
  /** The post's idempotency key (see `OutboundMessage.idempotencyKey`); null when nothing could be recorded. */
  readonly key: string | null;
  /**
   * The platform answered with the message's id: records it without holding the preview up (on PostgreSQL it
   * travels with the process's next statement, within 20 ms). Never rejects.
   */
  posted(messageId: string): Promise<void>;
}
