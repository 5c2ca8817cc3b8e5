import { context, defaultTextMapGetter, defaultTextMapSetter, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Link, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Logger } from '../logger.js';
import type { TraceSettings } from './trace-settings.js';
import { errorTypeOf, type ActiveSpan, type SpanAttributes, type Tracing } from './tracing.js';

/** The longest a shutdown waits for the last spans to leave: a collector that hangs never holds a stop. */
const SHUTDOWN_WAIT_MS = 2_000;

const propagator = new W3CTraceContextPropagator();

/** OpenTelemetry's attributes without the `undefined`s. */
function attributesOf(a: SpanAttributes | undefined): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(a ?? {})) if (value !== undefined) out[key] = value as Attributes[string];
  return out;
}

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
          if (!warned) logger.warn({ url, spans: spans.length, reason: why }, 'sending traces failed; spans are dropped while the collector is unreachable (further failures are logged at debug level)');
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

let contextManagerSet = false;

/** Spans marked failed by `fail` (a throw then keeps the kind the code chose). */
const failedSpans = new WeakSet<Span>();

const noSpanHandle: ActiveSpan = { set: () => undefined, fail: () => undefined, traceparent: () => '' };

/** The port's view of an SDK span: attributes, failure (status and `error.type`), and its `traceparent`. */
function handleOf(span: Span, active: Context): ActiveSpan {
  return {
    set: (a) => void span.setAttributes(attributesOf(a)),
    fail(errorType) {
      failedSpans.add(span);
      span.setAttribute('error.type', errorType);
      span.setStatus({ code: SpanStatusCode.ERROR });
    },
    traceparent() {
      const carrier: Record<string, string> = {};
      propagator.inject(active, carrier, defaultTextMapSetter);
      return carrier.traceparent ?? '';
    },
  };
}

/**
 * Traces over the OpenTelemetry SDK: a batch span processor (spans leave in the background, a bounded queue,
 * each export bounded by its timeout) and the OTLP/HTTP exporter (JSON). The active span follows async calls
 * through AsyncLocalStorage, so a model request or a tool call made inside a run's span is its child.
 */
export function createOtelTracing(settings: TraceSettings, logger: Logger, version = '0.1.0'): Tracing {
  if (!contextManagerSet) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    contextManagerSet = true;
  }
  const exporter = new OTLPTraceExporter({ url: settings.url, headers: { ...settings.headers }, timeoutMillis: settings.exportTimeoutMs });
  const processor = new BatchSpanProcessor(warnOnceExporter(exporter, logger, settings.url), {
    scheduledDelayMillis: settings.scheduleDelayMs,
    maxQueueSize: settings.maxQueueSize,
    maxExportBatchSize: Math.min(512, settings.maxQueueSize),
    exportTimeoutMillis: settings.exportTimeoutMs,
  });
  const resource = resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': version }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
  const tracer = provider.getTracer('errand', version);
  if (settings.protocolNote) logger.warn(settings.protocolNote);

  return {
    enabled: true,
    captureContent: settings.captureContent,
    async span(name, options, fn) {
      const parent = options.parent === undefined ? context.active() : options.parent === null ? ROOT_CONTEXT : (contextOf(options.parent) ?? ROOT_CONTEXT);
      const links: Link[] = [];
      for (const tp of options.links ?? []) {
        const linked = contextOf(tp);
        const spanContext = linked ? trace.getSpanContext(linked) : undefined;
        if (spanContext) links.push({ context: spanContext });
      }
      const span = tracer.startSpan(name, { kind: options.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes: attributesOf(options.attributes), links }, parent);
      const active = trace.setSpan(parent, span);
      const handle = handleOf(span, active);
      try {
        return await context.with(active, () => fn(handle));
      } catch (err) {
        if (!failedSpans.has(span)) handle.fail(errorTypeOf(err));
        throw err;
      } finally {
        span.end();
      }
    },
    currentSpan() {
      const span = trace.getSpan(context.active());
      return span ? handleOf(span, context.active()) : noSpanHandle;
    },
    injectHeaders(headers) {
      if (trace.getSpan(context.active())) propagator.inject(context.active(), headers, defaultTextMapSetter);
    },
    async shutdown() {
      await bounded(provider.shutdown(), SHUTDOWN_WAIT_MS);
    },
  };
}
