import { ErrorCode, McpError, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { ElicitationAsker, ElicitationScope } from './elicitation-scope.js';

/** What a client declares so servers may ask questions: forms and links (MCP 2025-11-25). */
export const ELICITATION_CAPABILITY = { elicitation: { form: {}, url: {} } } as const;

/**
 * Routes a server's `elicitation/create` to the tool call it belongs to. A question is always about a call
 * Errand made: with none in flight on this session it is refused (a JSON-RPC error, as the specification has
 * clients refuse requests not tied to one of theirs). The protocol does not say which call a question belongs
 * to, so with calls of several runs in flight on one shared session nobody can be sure whom to ask: the
 * question is cancelled and logged rather than put to the wrong person.
 */
export async function routeElicitation(
  params: unknown,
  inFlight: ReadonlySet<ElicitationScope>,
  asker: ElicitationAsker | null,
  logger: Logger,
): Promise<ElicitResult> {
  if (inFlight.size === 0)
    throw new McpError(
      ErrorCode.InvalidRequest,
      'Errand answers elicitation/create only during a tools/call it made; none is in flight on this session.',
    );
  if (!asker) {
    logger.warn('an MCP server asked a question, but nobody is set up to ask people here; cancelled it');
    return { action: 'cancel' };
  }
  const runs = new Set([...inFlight].map((s) => s.context.runId));
  if (runs.size > 1) {
    logger.warn(
      { calls: inFlight.size },
      'an MCP server asked a question while calls of several runs were in flight on its session; cannot tell whom to ask, so cancelled it',
    );
    return { action: 'cancel' };
  }
  const scope = [...inFlight].at(-1)!;
  return asker.ask(scope, params);
}
