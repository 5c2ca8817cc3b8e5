import { AsyncLocalStorage } from 'node:async_hooks';
import {
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from '@opentelemetry/api';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import type { Logger } from '../logger.js';
import type { TraceSettings } from './trace-settings.js';
import { errorTypeOf, type ActiveSpan, type SpanAttributes, type Tracing } from './tracing.js';

/** The longest a shutdown waits for the last spans to leave: a collector that hangs never holds a stop. */
const SHUTDOWN_WAIT_MS = 2_000;

const propagator = new W3CTraceContextPropagator();

/**
 * The port's attributes as OpenTelemetry's, as they are: the SDK itself leaves out `undefined` values (and copies
 * arrays), so no filtered copy is made per span.
 */
const attributesOf = (a: SpanAttributes | undefined): Attributes | undefined => a as Attributes | undefined;

/** The context a `traceparent` stands for (a remote parent), or null when it is not one. */
function contextOf(traceparent: string): Context | null {
  const ctx = propagator.extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter);
  return trace.getSpanContext(ctx) ? ctx : null;
}

/**
 * The exporter, reporting its first failure (collector down, refusing, too slow) as one warning and every later
 * one at debug level: the batch processor drops what cannot be sent, and the run never waits for it.
 */
function warnOnceExporter(inner: SpanExporter, logger: Logger, url: string): SpanExporter {
  let warned = false;
  return {
    export(spans: ReadableSpan[], done) {
      inner.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) {
          const why = result.error?.message ?? 'unknown error';
          if (!warned)
            logger.warn(
              { url, spans: spans.length, reason: why },
              'sending traces failed; spans are dropped while the collector is unreachable (further failures are logged at debug level)',
            );
          else logger.debug({ url, spans: spans.length, reason: why }, 'sending traces failed');
          warned = true;
        }
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

/** Waits for `work` at most `ms`, then goes on (what it was sending is dropped). */
function bounded(work: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    t.unref?.();
    work.then(
      () => (clearTimeout(t), resolve()),
      () => (clearTimeout(t), resolve()),
    );
  });
}

/**
 * The active span, carried through async calls by an AsyncLocalStorage that is on only while a span is open. On
 * Node 20 an enabled AsyncLocalStorage hooks every promise the process makes (OpenTelemetry's own context manager
 * keeps one on for good), so the storage is switched off when the last open span ends: the work outside every span
 * (receiving a message and queueing it, between a run and its deliveries, an idle bot) pays nothing for it. It is
 * this tracing's own, not OpenTelemetry's global context manager: nothing else in the process reads it.
 */
class SpanScope {
  private readonly storage = new AsyncLocalStorage<Context>();
  private open = 0;

  /** The context of the span active here; the root one outside every span. */
  active(): Context {
    return this.open === 0 ? ROOT_CONTEXT : (this.storage.getStore() ?? ROOT_CONTEXT);
  }

  /** Runs a span's work with `ctx` active for everything it awaits. */
  async within<T>(ctx: Context, fn: () => Promise<T>): Promise<T> {
    this.open++;
    try {
      return await this.storage.run(ctx, fn);
    } finally {
      if (--this.open === 0) this.storage.disable();
    }
  }
}

/** Spans marked failed by `fail` (a throw then keeps the kind the code chose). */
const failedSpans = new WeakSet<Span>();

const noSpanHandle: ActiveSpan = { set: () => undefined, fail: () => undefined, traceparent: () => '' };

/**
 * The port's view of an SDK span: attributes, failure (status and `error.type`), and its `traceparent`. A span whose
 * `traceparent` was asked for is findable by it in `live` until it ends, so a span started under that `traceparent`
 * in this process (a delivery under its run) has it as a local parent rather than a remote one.
 */
function handleOf(span: Span, active: Context, live?: Map<string, Context>): ActiveSpan & { release(): void } {
  let traceparent: string | null = null;
  return {
    release: () => void (traceparent && live?.delete(traceparent)),
    set: (a) => void span.setAttributes(a as Attributes),
    fail(errorType) {
      failedSpans.add(span);
      span.setAttribute('error.type', errorType);
      span.setStatus({ code: SpanStatusCode.ERROR });
    },
    traceparent() {
      if (traceparent !== null) return traceparent;
      const carrier: Record<string, string> = {};
      propagator.inject(active, carrier, defaultTextMapSetter);
      traceparent = carrier.traceparent ?? '';
      if (traceparent !== '' && span.isRecording()) live?.set(traceparent, active);
      return traceparent;
    },
  };
}

/**
 * Traces over the OpenTelemetry SDK: a batch span processor (spans leave in the background, a bounded queue,
 * each export bounded by its timeout) and the OTLP/HTTP exporter (protobuf, or JSON when asked). The active span
 * follows async calls (SpanScope), so a model request or a tool call made inside a run's span is its child.
 */
export async function createOtelTracing(settings: TraceSettings, logger: Logger, version = '0.1.0'): Promise<Tracing> {
  const scope = new SpanScope();
  /** Open spans by their `traceparent`, once asked for it (handleOf). */
  const live = new Map<string, Context>();
  // Only the exporter of the encoding asked for is loaded.
  const { OTLPTraceExporter: Exporter } =
    settings.protocol === 'http/json'
      ? await import('@opentelemetry/exporter-trace-otlp-http')
      : await import('@opentelemetry/exporter-trace-otlp-proto');
  const exporter = new Exporter({
    url: settings.url,
    headers: { ...settings.headers },
    timeoutMillis: settings.exportTimeoutMs,
  });
  const processor = new BatchSpanProcessor(warnOnceExporter(exporter, logger, settings.url), {
    scheduledDelayMillis: settings.scheduleDelayMs,
    maxQueueSize: settings.maxQueueSize,
    maxExportBatchSize: settings.maxExportBatchSize,
    exportTimeoutMillis: settings.exportTimeoutMs,
  });
  const resource = resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': version }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
  const tracer = provider.getTracer('errand', version);
  if (settings.protocolNote) logger.warn(settings.protocolNote);

  return {
    enabled: true,
    captureContent: settings.captureContent,
    async span(name, options, fn) {
      const parent =
        options.parent === undefined
          ? scope.active()
          : options.parent === null
            ? ROOT_CONTEXT
            : (live.get(options.parent) ?? contextOf(options.parent) ?? ROOT_CONTEXT);
      const links: Link[] = [];
      for (const tp of options.links ?? []) {
        const linked = contextOf(tp);
        const spanContext = linked ? trace.getSpanContext(linked) : undefined;
        if (spanContext) links.push({ context: spanContext });
      }
      const span = tracer.startSpan(
        name,
        {
          kind: options.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL,
          attributes: attributesOf(options.attributes),
          links,
        },
        parent,
      );
      const active = trace.setSpan(parent, span);
      const handle = handleOf(span, active, live);
      try {
        return await (options.active === false ? fn(handle) : scope.within(active, () => fn(handle)));
      } catch (err) {
        if (!failedSpans.has(span)) handle.fail(errorTypeOf(err));
        throw err;
      } finally {
        span.end();
        handle.release();
      }
    },
    currentSpan() {
      const active = scope.active();
      const span = trace.getSpan(active);
      return span ? handleOf(span, active) : noSpanHandle;
    },
    injectHeaders(headers) {
      const active = scope.active();
      if (trace.getSpan(active)) propagator.inject(active, headers, defaultTextMapSetter);
    },
    async shutdown() {
      await bounded(provider.shutdown(), SHUTDOWN_WAIT_MS);
    },
  };
}
