import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { ToolContext, ToolResult } from '../agent/tools/tool.js';
import type { Clock } from '../clock.js';
import type { McpServerSettings } from '../settings/mcp-server-settings.js';
import { filterServerTools } from './mcp-tool-filter.js';
import { scrubbedError } from './scrubbed-error.js';
import { cancelledError, timedOutError, timedToolCall } from './timed-tool-call.js';
import { createMcpSession, type McpSession } from './mcp-session.js';
import type { ElicitationAsker } from './elicitation-scope.js';
import type { RestartBackoff } from './restart-backoff.js';

/** Where a server is in its life; `reason` says why it is not connected. */
export type McpServerState =
  | { readonly kind: 'starting' }
  | { readonly kind: 'connected' }
  | { readonly kind: 'failed'; readonly reason: string }
  | { readonly kind: 'restarting'; readonly reason: string }
  | { readonly kind: 'disabled' }
  | { readonly kind: 'closed' };

export interface McpConnectionOptions {
  readonly name: string;
  readonly settings: McpServerSettings;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly backoff: RestartBackoff;
  readonly startTimeoutMs: number;
  readonly maxResultChars: number;
  /** The offered tools changed (connected, restarted, list_changed). */
  readonly onToolsChanged: () => void;
  /** Who asks people this server's questions during a call (bound at app start). */
  readonly elicitation?: () => ElicitationAsker | null;
  /** Adds the active span's `traceparent` to a request's headers (traces on): HTTP servers' calls join the run's trace. */
  readonly injectTraceHeaders?: ((headers: Record<string, string>) => void) | undefined;
}

/** A connection that stayed up this long resets the restart backoff. */
const STABLE_MS = 60_000;

/** A start attempt failed; the message is the readable reason. */
class StartFailure extends Error {}

const reasonOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

const afterIo = () => new Promise((resolve) => setImmediate(resolve));

/**
 * One configured server over its whole life: first start (a failure is logged and the server skipped),
 * tool list (kept current on list_changed), calls with timeout and cancellation, and restarts with
 * backoff after a crash. Every failure a caller can meet comes back as a `ToolResult`, never thrown.
 */
export class McpServerConnection {
  private state: McpServerState;
  private session: McpSession | null = null;
  private toolList: readonly Tool[] = [];
  private restartTimer: unknown = null;
  private restartAttempt = 0;
  private connectedAt = 0;
  private refreshSeq = 0;

  constructor(private readonly o: McpConnectionOptions) {
    this.state = o.settings.disabled ? { kind: 'disabled' } : { kind: 'starting' };
  }

  get currentState(): McpServerState {
    return this.state;
  }

  /** The stdio child's pid while one runs. */
  get pid(): number | null {
    return this.session?.pid ?? null;
  }

  /** The server's `approval` setting (auto / always / never). */
  get approval(): McpServerSettings['approval'] {
    return this.o.settings.approval;
  }

  /** The server's tools after `tools` / `disabledTools`; the last known list while restarting. */
  get tools(): readonly Tool[] {
    return this.toolList;
  }

  /** Connects and lists tools; never throws (a failure leaves the state `failed` with the reason). */
  async start(): Promise<void> {
    if (this.state.kind !== 'starting') return;
    try {
      await this.open();
      this.o.logger.info({ tools: this.toolList.length, pid: this.pid }, 'MCP server connected');
    } catch (err) {
      if (this.isClosed()) return;
      const reason = reasonOf(err);
      this.state = { kind: 'failed', reason };
      this.o.logger.error({ reason }, `MCP server "${this.o.name}" could not start and is skipped: ${reason}`);
    }
  }

  /** Calls one tool of this server; `exposedName` is what the model called it. */
  async call(
    toolName: string,
    exposedName: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    context?: ToolContext,
  ): Promise<ToolResult> {
    const session = this.session;
    if (this.state.kind !== 'connected' || !session) return this.notRunning();
    if (signal.aborted) return { ok: false, error: `${exposedName} was not run: the run was stopped.` };
    const limits = {
      clock: this.o.clock,
      timeoutSeconds: this.o.settings.timeoutSeconds,
      maxResultChars: this.o.maxResultChars,
    };
    const origin = context ? { server: this.o.name, exposedName, context } : undefined;
    return timedToolCall(
      session,
      toolName,
      args,
      signal,
      limits,
      (err, timedOut) => this.callFailed(err, session, exposedName, signal, timedOut),
      origin,
    );
  }

  /** Stops restarts and closes the session (for stdio: the child process is gone when this resolves). */
  async close(): Promise<void> {
    this.state = { kind: 'closed' };
    if (this.restartTimer !== null) this.o.clock.clearTimer(this.restartTimer);
    this.restartTimer = null;
    const session = this.session;
    this.session = null;
    await session?.close();
  }

  private async callFailed(
    err: unknown,
    session: McpSession,
    exposedName: string,
    signal: AbortSignal,
    timedOut: AbortSignal,
  ): Promise<ToolResult> {
    const timeoutError = err instanceof McpError && err.code === ErrorCode.RequestTimeout;
    if (timedOut.aborted || (timeoutError && !signal.aborted)) {
      return timedOutError(exposedName, this.o.settings.timeoutSeconds);
    }
    if (signal.aborted) return cancelledError(exposedName);
    if (this.state.kind === 'closed')
      return { ok: false, error: `${exposedName} did not finish: Errand is shutting down.` };
    const lost = err instanceof McpError ? err.code === ErrorCode.ConnectionClosed : 'url' in this.o.settings;
    if (lost || session !== this.session || this.state.kind !== 'connected') {
      this.crashed(session, err);
      await afterIo();
      const reason = this.state.kind === 'restarting' ? this.state.reason : session.describe(err);
      return {
        ok: false,
        error: `The MCP server "${this.o.name}" stopped while running ${exposedName} (it crashed: ${reason}); it is being restarted. Try again later or do without it.`,
      };
    }
    return {
      ok: false,
      error: `${exposedName} failed: ${session.scrub(err instanceof Error ? err.message : String(err))}`,
    };
  }

  private notRunning(): ToolResult {
    const s = this.state;
    const why =
      s.kind === 'restarting'
        ? `it crashed: ${s.reason}`
        : s.kind === 'failed'
          ? `it could not start: ${s.reason}`
          : s.kind;
    const next =
      s.kind === 'restarting' ? '; it is being restarted. Try again later or do without it.' : '. Do without it.';
    return { ok: false, error: `The MCP server "${this.o.name}" is not running (${why})${next}` };
  }

  /** Opens a fresh session and lists its tools within the start timeout; rejects with a readable reason. */
  private async open(): Promise<void> {
    const session = createMcpSession({
      settings: this.o.settings,
      logger: this.o.logger,
      injectTraceHeaders: this.o.injectTraceHeaders,
      onUnexpectedClose: () => this.crashed(session, null),
      onToolListChanged: () => void this.refreshTools(session),
      ...(this.o.elicitation ? { elicitation: this.o.elicitation } : {}),
    });
    this.session = session;
    const seconds = Math.round(this.o.startTimeoutMs / 1000);
    let timer: unknown = null;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = this.o.clock.setTimer(
        () => reject(new StartFailure(`did not answer within ${seconds} s`)),
        this.o.startTimeoutMs,
      );
    });
    const opening = (async () => {
      await session.connect();
      return filterServerTools(await session.listTools(), this.o.settings);
    })();
    opening.catch(() => {});
    try {
      const filtered = await Promise.race([opening, timeout]);
      if (this.isClosed()) throw new StartFailure('closed while starting');
      this.setTools(filtered.tools, filtered.unknownNames);
      this.state = { kind: 'connected' };
      this.connectedAt = this.o.clock.now();
    } catch (err) {
      const failure = err instanceof StartFailure ? err : new StartFailure(session.describe(err));
      if (this.session === session) this.session = null;
      await session.close();
      throw failure;
    } finally {
      this.o.clock.clearTimer(timer);
    }
  }

  private isClosed(): boolean {
    return this.state.kind === 'closed';
  }

  private setTools(tools: readonly Tool[], unknownNames: readonly string[]): void {
    this.toolList = tools;
    if (unknownNames.length > 0) {
      this.o.logger.warn(
        { unknownNames },
        `MCP server "${this.o.name}" has no tools named ${unknownNames.map((n) => `"${n}"`).join(', ')} (listed in "tools" or "disabledTools")`,
      );
    }
    this.o.onToolsChanged();
  }

  private async refreshTools(session: McpSession): Promise<void> {
    const seq = ++this.refreshSeq;
    try {
      const filtered = filterServerTools(await session.listTools(), this.o.settings);
      if (seq !== this.refreshSeq || session !== this.session || this.state.kind !== 'connected') return;
      this.setTools(filtered.tools, filtered.unknownNames);
      this.o.logger.info({ tools: filtered.tools.length }, 'MCP server changed its tool list');
    } catch (err) {
      this.o.logger.warn(
        { err: scrubbedError(err, session.scrub) },
        'MCP server announced new tools but listing them failed',
      );
    }
  }

  /**
   * Marks the server as restarting at once (so calls fail fast), then — once the process's exit code and
   * last stderr lines have arrived — records the reason and schedules the restart.
   */
  private crashed(session: McpSession, err: unknown): void {
    if (session !== this.session || this.state.kind !== 'connected') return;
    if (this.o.clock.now() - this.connectedAt >= STABLE_MS) this.restartAttempt = 0;
    const provisional: McpServerState = { kind: 'restarting', reason: 'the connection closed' };
    this.state = provisional;
    this.session = null;
    void session.close();
    void afterIo().then(() => {
      if (this.state !== provisional) return;
      this.state = { kind: 'restarting', reason: session.describe(err) };
      this.scheduleRestart();
    });
  }

  private scheduleRestart(): void {
    const delay = this.o.backoff(this.restartAttempt++);
    const reason = this.state.kind === 'restarting' ? this.state.reason : '';
    this.o.logger.warn(
      { delayMs: delay, reason },
      `MCP server "${this.o.name}" stopped (${reason}); restarting in ${Math.round(delay / 100) / 10} s`,
    );
    this.restartTimer = this.o.clock.setTimer(() => void this.restart(), delay);
  }

  private async restart(): Promise<void> {
    this.restartTimer = null;
    if (this.state.kind !== 'restarting') return;
    try {
      await this.open();
      this.o.logger.info({ tools: this.toolList.length, pid: this.pid }, 'MCP server restarted');
    } catch (err) {
      if (this.state.kind !== 'restarting') return;
      this.state = { kind: 'restarting', reason: reasonOf(err) };
      this.scheduleRestart();
    }
  }
}
