import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { SignInNeeded } from '../../agent/tools/external-tool.js';
import type { ToolContext, ToolResult } from '../../agent/tools/tool.js';
import type { Clock } from '../../clock.js';
import type { HttpServerSettings } from '../../settings/mcp-server-settings.js';
import { filterServerTools } from '../../mcp/mcp-tool-filter.js';
import { cancelledError, timedOutError, timedToolCall } from '../../mcp/timed-tool-call.js';
import { createMcpSession, type McpSession } from '../../mcp/mcp-session.js';
import type { StoredOAuthProvider } from './stored-oauth-provider.js';
import { scrubbedError } from '../../mcp/scrubbed-error.js';
import type { ElicitationAsker } from '../../mcp/elicitation-scope.js';
import { askToConnect, type OAuthBinding } from './oauth-sign-in.js';

export { cannotLinkHereError, connectNoticeText, notConnectedError, signInAgainError } from './oauth-sign-in.js';
export type { ConnectNotice, OAuthBinding } from './oauth-sign-in.js';

export interface OAuthToolServerOptions {
  readonly name: string;
  readonly settings: HttpServerSettings;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly maxResultChars: number;
  /** The offered tools changed (the first person's session listed them). */
  readonly onToolsChanged: () => void;
  /** Who asks people this server's questions during a call (bound at app start). */
  readonly elicitation?: () => ElicitationAsker | null;
  /** Open per-person sessions kept at most (the least recently used is closed first). Default 50. */
  readonly maxSessions?: number;
  /** Adds the active span's `traceparent` to a request's headers (traces on): HTTP servers' calls join the run's trace. */
  readonly injectTraceHeaders?: ((headers: Record<string, string>) => void) | undefined;
}

/** The tool offered while nobody has connected yet, so the model can still reach the server for its person. */
export const SIGN_IN_TOOL = 'sign_in';

interface PersonSession {
  readonly session: McpSession;
  readonly provider: StoredOAuthProvider;
  readonly opened: Promise<void>;
  /** Calls running on the session now (an MCP question of the server's may hold one for hours): it is not closed under them. */
  calls: number;
}

/**
 * An `auth: "oauth"` server: each person's calls go through their own MCP session, carrying their own token (the
 * provider reads it from the database per request), so one person is never served with another's account. The
 * principal is the run's (ToolContext.principal: a scheduled run's creator), never whoever wrote last in the thread.
 * Sessions are kept per person up to a bound and closed on disconnect and shutdown. The tool list is the server's
 * own metadata: learned from the first person's session; until then one `sign_in` tool stands for the server.
 */
export class OAuthToolServer {
  private binding: OAuthBinding | null = null;
  private readonly sessions = new Map<string, PersonSession>();
  private toolList: readonly Tool[] = [];
  private closed = false;

  constructor(private readonly o: OAuthToolServerOptions) {}

  /** Connects this server to the running OAuth service (app start); calls before it fail with a clear error. */
  bind(binding: OAuthBinding): void {
    this.binding = binding;
  }

  get currentState(): { readonly kind: 'connected' } | { readonly kind: 'starting' } | { readonly kind: 'closed' } {
    return this.closed ? { kind: 'closed' } : this.binding ? { kind: 'connected' } : { kind: 'starting' };
  }

  readonly pid = null;

  get approval(): HttpServerSettings['approval'] {
    return this.o.settings.approval;
  }

  /** The server's tools once some person's session listed them; the `sign_in` stand-in before. */
  get tools(): readonly Tool[] {
    if (this.toolList.length > 0) return this.toolList;
    return [
      {
        name: SIGN_IN_TOOL,
        description: `Connects the person you act for to ${this.o.name} (their own account), so that its tools become available. Call it when they ask for something in ${this.o.name}.`,
        inputSchema: { type: 'object', properties: {} },
        annotations: { readOnlyHint: true },
      },
    ];
  }

  /** Nothing to start: sessions open per person on their first call. */
  async start(): Promise<void> {}

  /**
   * Calls `toolName` for the run's principal with their own token. Without a connection (or when the server wants a
   * new sign-in) they are sent a private Connect link and the call answers SignInNeeded: the run waits for them.
   */
  async call(
    toolName: string,
    exposedName: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    context?: ToolContext,
  ): Promise<ToolResult | SignInNeeded> {
    const binding = this.binding;
    if (this.closed) return { ok: false, error: `${exposedName} did not run: Errand is shutting down.` };
    if (!binding)
      return { ok: false, error: `The MCP server "${this.o.name}" is not ready yet. Try again in a moment.` };
    const principal =
      context?.principal ??
      (context?.userId ? { platform: context.conversation.platform, userId: context.userId } : null);
    if (!context || !principal)
      return {
        ok: false,
        error: `${exposedName} was not run: ${this.o.name} acts for a person, and this run acts for nobody.`,
      };
    if (signal.aborted) return { ok: false, error: `${exposedName} was not run: the run was stopped.` };
    const key = `${principal.platform}:${principal.userId}`;
    const outcome = await binding.connections.tokenFor(key, this.o.name, { runId: context.runId });
    if (outcome.kind === 'unavailable') return { ok: false, error: `${exposedName} was not run: ${outcome.reason}` };
    if (outcome.kind === 'authorize')
      return this.askToConnect(binding, context.conversationId, principal.userId, outcome.url);
    const person = this.sessionFor(binding, key, context.runId);
    person.calls++;
    try {
      await person.opened;
      if (toolName === SIGN_IN_TOOL && !this.toolList.some((t) => t.name === SIGN_IN_TOOL)) {
        return {
          ok: true,
          connected: true,
          note: `${principal.userId} is connected to ${this.o.name}; its tools are available now.`,
        };
      }
      return await this.run(person.session, toolName, exposedName, args, signal, context);
    } catch (err) {
      await this.drop(key, person);
      const url = person.provider.authorizationUrl;
      if (url)
        return this.askToConnect(
          binding,
          context.conversationId,
          principal.userId,
          await this.linkForRun(binding, key, person.provider, url, context.runId),
          true,
        );
      return { ok: false, error: `${exposedName} failed: ${person.session.describe(err)}` };
    } finally {
      person.calls--;
      // A session kept open past the bound while calls ran on it goes once it is idle.
      this.trim();
    }
  }

  /**
   * Opens the person's session now that they connected (the sign-in callback), so the server's tools are known here
   * before the call that waited for the sign-in runs again (after a restart this process knew only `sign_in`).
   * A failure is left to that call, which reports it.
   */
  async open(principal: string): Promise<void> {
    const binding = this.binding;
    if (this.closed || !binding) return;
    await this.sessionFor(binding, principal, null).opened.catch(() => {});
  }

  /** Closes the person's session (after a disconnect): their next call starts from their stored connection again. */
  async forget(principal: string): Promise<void> {
    const person = this.sessions.get(principal);
    if (person) await this.drop(principal, person);
  }

  /** Closes every person's session. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((p) => p.session.close()));
  }

  /**
   * The session is shared by the person's runs, and its provider bound the sign-in it started to the run that
   * opened it: this run asks for its own link (same scopes), so the note after the callback lands in this thread.
   * When the stored connection still looks valid to Errand (a revoked token), the provider's link is kept.
   */
  private async linkForRun(
    binding: OAuthBinding,
    key: string,
    provider: StoredOAuthProvider,
    url: URL,
    runId: string,
  ): Promise<string> {
    if (provider.runId === runId) return url.toString();
    const scope = url.searchParams.get('scope');
    const fresh = await binding.connections.tokenFor(key, this.o.name, { runId, ...(scope ? { scope } : {}) });
    return fresh.kind === 'authorize' ? fresh.url : url.toString();
  }

  private askToConnect(
    binding: OAuthBinding,
    conversationId: string,
    userId: string,
    url: string,
    again = false,
  ): Promise<ToolResult | SignInNeeded> {
    return askToConnect(
      binding,
      { server: this.o.name, logger: this.o.logger },
      { conversationId, userId, url, again },
    );
  }

  private async run(
    session: McpSession,
    toolName: string,
    exposedName: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    context: ToolContext,
  ): Promise<ToolResult> {
    const limits = {
      clock: this.o.clock,
      timeoutSeconds: this.o.settings.timeoutSeconds,
      maxResultChars: this.o.maxResultChars,
    };
    return timedToolCall(
      session,
      toolName,
      args,
      signal,
      limits,
      async (err, timedOut) => {
        if (timedOut.aborted) return timedOutError(exposedName, this.o.settings.timeoutSeconds);
        if (signal.aborted) return cancelledError(exposedName);
        throw err;
      },
      { server: this.o.name, exposedName, context },
    );
  }

  /** The person's open session (most recently used last), or a new one; the least recently used beyond the bound is closed. */
  private sessionFor(binding: OAuthBinding, key: string, runId: string | null): PersonSession {
    const known = this.sessions.get(key);
    if (known) {
      this.sessions.delete(key);
      this.sessions.set(key, known);
      return known;
    }
    const provider = binding.connections.authProvider(key, this.o.name, runId);
    const session = createMcpSession({
      settings: this.o.settings,
      logger: this.o.logger,
      injectTraceHeaders: this.o.injectTraceHeaders,
      authProvider: provider,
      onUnexpectedClose: () => void this.forget(key),
      onToolListChanged: () => void this.listWith(session),
      ...(this.o.elicitation ? { elicitation: this.o.elicitation } : {}),
    });
    const opened = (async () => {
      await session.connect();
      if (this.toolList.length === 0) await this.listWith(session);
    })();
    opened.catch(() => {});
    const person: PersonSession = { session, provider, opened, calls: 0 };
    this.sessions.set(key, person);
    this.trim(person);
    return person;
  }

  /**
   * Closes the least recently used sessions beyond the bound, never one a call runs on (nor `keep`, about to be
   * used): the bound is then passed for as long as those calls run, and met again as they end.
   */
  private trim(keep?: PersonSession): void {
    const bound = this.o.maxSessions ?? 50;
    for (const [oldest, p] of this.sessions) {
      if (this.sessions.size <= bound) break;
      if (p.calls > 0 || p === keep) continue;
      void this.drop(oldest, p);
    }
  }

  private async listWith(session: McpSession): Promise<void> {
    try {
      const filtered = filterServerTools(await session.listTools(), this.o.settings);
      this.toolList = filtered.tools;
      this.o.onToolsChanged();
    } catch (err) {
      this.o.logger.warn({ err: scrubbedError(err, session.scrub) }, 'listing the tools of an OAuth MCP server failed');
    }
  }

  private async drop(key: string, person: PersonSession): Promise<void> {
    if (this.sessions.get(key) === person) this.sessions.delete(key);
    await person.session.close();
  }
}
