import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { decodeTraceExport, type DecodedExport } from './otlp-protobuf.js';

/** A span as the collector received it, attributes decoded to plain values. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's SpanKind number: 1 internal, 3 client. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly links: readonly { traceId: string; spanId: string }[];
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  readonly service: string | null;
}

/** How the collector answers: accept, refuse every export (HTTP 503), or never answer. */
export type CollectorMode = 'accept' | 'refuse' | 'hang';

export interface FakeCollector {
  /** `http://127.0.0.1:<port>`: OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly endpoint: string;
  readonly spans: ReceivedSpan[];
  /** Export requests received, answered or not. */
  readonly requests: () => number;
  /** Export requests left unanswered (mode `hang`). */
  readonly hanging: () => number;
  /** The encodings of the exports decoded so far, in order: `protobuf` or `json`. */
  readonly encodings: ('protobuf' | 'json')[];
  setMode(mode: CollectorMode): void;
  close(): Promise<void>;
}

const anyValue: z.ZodType<unknown> = z.lazy(() =>
  z
    .object({
      stringValue: z.string().optional(),
      boolValue: z.boolean().optional(),
      intValue: z.union([z.number(), z.string()]).optional(),
      doubleValue: z.number().optional(),
      arrayValue: z.object({ values: z.array(anyValue).optional() }).optional(),
    })
    .transform((v): unknown => {
      if (v.stringValue !== undefined) return v.stringValue;
      if (v.boolValue !== undefined) return v.boolValue;
      if (v.intValue !== undefined) return Number(v.intValue);
      if (v.doubleValue !== undefined) return v.doubleValue;
      if (v.arrayValue) return v.arrayValue.values ?? [];
      return null;
    }),
);
const attributes = z
  .array(z.object({ key: z.string(), value: anyValue }))
  .optional()
  .transform((l) => Object.fromEntries((l ?? []).map((a) => [a.key, a.value])));
/** OTLP/HTTP JSON (`ExportTraceServiceRequest`), ids in hex as the JSON encoding writes them. */
const exportRequest = z.object({
  resourceSpans: z.array(
    z.object({
      resource: z.object({ attributes }).optional(),
      scopeSpans: z.array(
        z.object({
          spans: z.array(
            z.object({
              traceId: z.string(),
              spanId: z.string(),
              parentSpanId: z.string().optional(),
              name: z.string(),
              kind: z.number(),
              attributes,
              links: z.array(z.object({ traceId: z.string(), spanId: z.string() })).optional(),
              status: z.object({ code: z.number().optional() }).optional(),
            }),
          ),
        }),
      ),
    }),
  ),
});

/** An export's body as the collector reads it: protobuf (`application/x-protobuf`, OTLP's default) or JSON. */
function decode(
  contentType: string | undefined,
  body: Buffer,
): { encoding: 'protobuf' | 'json'; request: DecodedExport } {
  if (contentType?.startsWith('application/x-protobuf'))
    return { encoding: 'protobuf', request: decodeTraceExport(body) };
  if (contentType?.startsWith('application/json'))
    return { encoding: 'json', request: exportRequest.parse(JSON.parse(body.toString('utf8'))) };
  throw new Error(`an OTLP/HTTP export with content-type ${contentType ?? '(none)'}`);
}

/**
 * A local OpenTelemetry collector: POST /v1/traces with OTLP/HTTP protobuf or JSON, decoded and kept. It can refuse every
 * export (503) or hang (never answer), as a collector that is down or overloaded does.
 */
export async function startFakeCollector(): Promise<FakeCollector> {
  const spans: ReceivedSpan[] = [];
  const encodings: ('protobuf' | 'json')[] = [];
  let mode: CollectorMode = 'accept';
  let requests = 0;
  const hanging = new Set<ServerResponse>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests++;
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      if (mode === 'hang') return void hanging.add(res);
      if (mode === 'refuse')
        return void res
          .writeHead(503, { 'content-type': 'application/json' })
          .end('{"code":14,"message":"unavailable"}');
      const { encoding, request: body } = decode(req.headers['content-type'], Buffer.concat(chunks));
      encodings.push(encoding);
      for (const rs of body.resourceSpans) {
        const service = rs.resource?.attributes['service.name'];
        for (const ss of rs.scopeSpans) {
          for (const s of ss.spans) {
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              name: s.name,
              kind: s.kind,
              attributes: s.attributes,
              links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
              statusCode: s.status?.code ?? 0,
              service: typeof service === 'string' ? service : null,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    requests: () => requests,
    hanging: () => hanging.size,
    encodings,
    setMode: (m) => {
      mode = m;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
