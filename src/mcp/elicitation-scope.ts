import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolContext } from '../agent/tools/tool.js';

/**
 * One tool call in flight on an MCP session, as far as a question from its server needs to know: who the run
 * acts for and where (its context), which tool, the run's stop signal, and a way to stop the call's own
 * timeout from counting while a person answers.
 */
export interface ElicitationScope {
  /** The server's configured name (shown, so the person knows who asks). */
  readonly server: string;
  /** The tool as the model called it (`<server>__<tool>`). */
  readonly exposedName: string;
  readonly context: ToolContext;
  /** Aborted when the run is stopped (or the call given up): the question is then cancelled. */
  readonly signal: AbortSignal;
  /** Pauses the call's timeout; the returned function resumes it. */
  hold(): () => void;
}

/** Whoever asks the person a server's question and brings back their answer (the ElicitationDesk). */
export interface ElicitationAsker {
  /**
   * Never rejects for a person's choice: decline and cancel are results. Rejects (McpError) for a malformed request,
   * and when this process gives up the call without an answer (a shutdown or takeover: the question stays open).
   */
  ask(scope: ElicitationScope, params: unknown): Promise<ElicitResult>;
  /**
   * The server says the out-of-band part of URL question `elicitationId` is finished
   * (`notifications/elicitation/complete`); `inFlight` are the calls of the session it came on.
   */
  completed?(elicitationId: string, inFlight: ReadonlySet<ElicitationScope>): void;
}
