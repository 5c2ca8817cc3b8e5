import { RunAbortedError } from '../errors.js';
import type { LlmResponse } from './llm-response.js';

/**
 * A streamed request stopped after the endpoint had begun answering: the endpoint spent (and bills) the tokens,
 * but the `usage` it sends in the last chunk may never have arrived. Carries what did arrive, so the request can
 * still be charged (stopped-request-charge.ts) and a run stopped just before each answer ends still uses up its
 * budgets (DESIGN.md "Who may use it, and what it may spend").
 */
export class StoppedRequestError extends RunAbortedError {
  constructor(
    /** The answer as far as it came: its text and tool-call fragments, and `usage` when the last chunk came too. */
    readonly received: LlmResponse,
    /** The model asked (what the charge is priced by). */
    readonly model: string,
  ) {
    super();
  }
}
