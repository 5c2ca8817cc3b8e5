import type { ConversationRef } from '../../chat/conversation-ref.js';
import type { ToolContext, ToolResult } from './tool.js';

/**
 * A tool Errand does not define itself (today: an MCP server's). Its arguments are described by the
 * server's JSON Schema and validated by the server, so the registry only checks they are a JSON object.
 */
export interface ExternalTool {
  /** The name the model sees: `<server>__<tool>`, `[A-Za-z0-9_-]`, at most 64 characters. */
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  /** A person must approve each call, unless they chose "Always allow here" in this conversation. */
  readonly needsApproval: boolean;
  /**
   * What a call returns belongs to the run's principal alone (an MCP server whose `visibility` is private: by default
   * one people sign in to): it never reaches another person's run. Absent: public.
   */
  readonly privateResults?: boolean;
  /**
   * Never throws for expected failures (timeouts, crashed servers, tool errors): they come back as `{ ok: false }`.
   * `SignInNeeded`: not run because the run's principal must connect their account first; the run waits for it.
   */
  call(args: Record<string, unknown>, context: ToolContext, signal: AbortSignal): Promise<ToolResult | SignInNeeded>;
}

/**
 * A call that did not run because the run's principal has not connected their account to an `auth: "oauth"`
 * server (or must sign in again): they were sent a private Connect link, and the run waits for the callback like
 * for an approval. `error` is what the model reads if the call is not waited on.
 */
export interface SignInNeeded {
  readonly ok: false;
  readonly error: string;
  readonly signIn: { readonly server: string };
}

/** Whether a tool's answer asks the run to wait for a sign-in. */
export function isSignInNeeded(result: ToolResult | SignInNeeded): result is SignInNeeded {
  return result.ok === false && 'signIn' in result && typeof (result as { signIn?: unknown }).signIn === 'object';
}

/** Where external tools come from; the list may change between steps (servers restart, lists change). */
export interface ExternalToolSource {
  /** The tools offered in this conversation (per-server `channels` filters apply). */
  toolsFor(conversation: ConversationRef): readonly ExternalTool[];
}
