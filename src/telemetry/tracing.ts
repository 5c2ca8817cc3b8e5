/** A value a span attribute may hold (OpenTelemetry's primitive types and string arrays). */
export type AttributeValue = string | number | boolean | readonly string[];

/** Span attributes; an `undefined` value is left out. */
export type SpanAttributes = Readonly<Record<string, AttributeValue | undefined>>;

/** The span a traced operation runs in, as the code inside sees it. */
export interface ActiveSpan {
  /** Adds attributes learned on the way (tokens, finish reasons, an outcome). */
  set(attributes: SpanAttributes): void;
  /** The operation failed: the span's status is an error and `error.type` says which kind (never a message text). */
  fail(errorType: string): void;
  /** This span as a W3C `traceparent` (what a later span links to, or a delivery hangs under). */
  traceparent(): string;
}

export interface SpanOptions {
  /** `client` for calls that leave the process (model requests, MCP calls, platform posts); default `internal`. */
  readonly kind?: 'internal' | 'client';
  readonly attributes?: SpanAttributes;
  /** Spans this one follows from without being their child (`traceparent`s): a resumed run's first trace. */
  readonly links?: readonly string[];
  /** The parent as a `traceparent`, when it is not the span active here (a delivery under its run); null: a new trace. */
  readonly parent?: string | null;
  /**
   * false: the span is not made the active one for the code inside `fn`, whose spans then name it as `parent` (a
   * run's requests by the run's `traceparent`) and whose `currentSpan`/`injectHeaders` do not see it. Carrying the
   * active span through async calls needs an AsyncLocalStorage, which on Node 20 hooks every promise the process
   * makes while it is on; a run or a model request, whose insides need no lookup, spares that. Default true.
   */
  readonly active?: boolean;
}

/**
 * Traces, as the core sees them (DESIGN.md "Traces and cost"): a span around an operation, with the active span
 * as its parent, and the trace context for outgoing requests. The OpenTelemetry implementation
 * (otel-tracing.ts) is loaded only when an OTLP endpoint is configured; otherwise `noopTracing` costs a call.
 */
export interface Tracing {
  /** Whether spans are recorded and sent at all. */
  readonly enabled: boolean;
  /**
   * OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: spans may carry message text, tool arguments and
   * results, and the principal's platform id. Off by default: none of them leave the process.
   */
  readonly captureContent: boolean;
  /** Runs `fn` inside a new span named `name`, ended when `fn` settles; a throw marks it failed and is passed on. */
  span<T>(name: string, options: SpanOptions, fn: (span: ActiveSpan) => Promise<T>): Promise<T>;
  /** The span active here (a no-op one when none is): code deep inside an operation marks it failed without threading it. */
  currentSpan(): ActiveSpan;
  /** Adds the active span's `traceparent` (and `tracestate`) to outgoing request headers; nothing when none is active. */
  injectHeaders(headers: Record<string, string>): void;
  /** Sends what is queued, giving up after a bounded wait: a collector that hangs never holds a shutdown. */
  shutdown(): Promise<void>;
}

const NO_TRACEPARENT = '';
const noSpan: ActiveSpan = { set: () => undefined, fail: () => undefined, traceparent: () => NO_TRACEPARENT };

/** Tracing off: every span is just the call, nothing is recorded or sent. */
export const noopTracing: Tracing = {
  enabled: false,
  captureContent: false,
  span: (_name, _options, fn) => fn(noSpan),
  currentSpan: () => noSpan,
  injectHeaders: () => undefined,
  shutdown: async () => undefined,
};

/** The kind of a failure for `error.type`: an error's `code` when it has one, else its class name; never its message. */
export function errorTypeOf(err: unknown): string {
  if (err && typeof err === 'object') {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    const name = (err as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === 'string' && name !== '' && name !== 'Object') return name;
  }
  return '_OTHER';
}
