/** The standard OpenTelemetry variables Errand reads for traces, resolved once at start-up. */
export interface TraceSettings {
  /** Where spans go: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`. */
  readonly url: string;
  readonly serviceName: string;
  /** OTEL_EXPORTER_OTLP_(TRACES_)HEADERS: `key=value,key2=value2` (an API key for a hosted backend). */
  readonly headers: Readonly<Record<string, string>>;
  /** One export's time limit (OTEL_EXPORTER_OTLP_(TRACES_)TIMEOUT, default 10 s). */
  readonly exportTimeoutMs: number;
  /** How long spans wait to be sent in a batch (OTEL_BSP_SCHEDULE_DELAY, default 5 s). */
  readonly scheduleDelayMs: number;
  /** Spans kept while the collector is slow or away; past it new ones are dropped (OTEL_BSP_MAX_QUEUE_SIZE, default 2048). */
  readonly maxQueueSize: number;
  /**
   * Most spans in one export (OTEL_BSP_MAX_EXPORT_BATCH_SIZE, at most the queue): a full batch leaves at once. Errand's
   * default is 64, not the specification's 512: spans held for a big batch outlive the young generation and cost
   * the garbage collector more than the extra requests cost (bench: CPU per traced message +5–7 % against +15–18 %).
   */
  readonly maxExportBatchSize: number;
  readonly captureContent: boolean;
  /**
   * The OTLP/HTTP encoding (OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL): `http/protobuf`, the specification's default and
   * what every OTLP receiver accepts, or `http/json`.
   */
  readonly protocol: OtlpProtocol;
  /** A requested protocol Errand does not speak (gRPC): it sends http/protobuf instead, and says so once. */
  readonly protocolNote: string | null;
}

/** The OTLP/HTTP encodings Errand sends. */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** Whether the environment turns traces on: an OTLP endpoint is set (and OTEL_SDK_DISABLED is not true). */
export function tracesConfigured(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}

const positive = (raw: string | undefined, fallback: number): number => {
  const n = Number(raw?.trim());
  return raw !== undefined && raw.trim() !== '' && Number.isFinite(n) && n > 0 ? n : fallback;
};

/** `key=value,key2=value2`, each part URL-decoded, as the OTLP exporter specification writes headers. */
export function parseOtlpHeaders(raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (raw ?? '').split(',')) {
    const at = part.indexOf('=');
    if (at <= 0) continue;
    const key = decodeURIComponent(part.slice(0, at).trim());
    if (key !== '') out[key] = decodeURIComponent(part.slice(at + 1).trim());
  }
  return out;
}

/** Reads the trace settings from the standard variables; null when traces are off. */
export function traceSettingsFrom(env: NodeJS.ProcessEnv): TraceSettings | null {
  if (!tracesConfigured(env)) return null;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() ?? '';
  const url = traces || `${base.replace(/\/+$/, '')}/v1/traces`;
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim();
  return {
    url,
    serviceName: env.OTEL_SERVICE_NAME?.trim() || 'errand',
    headers: {
      ...parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_HEADERS),
      ...parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
    },
    exportTimeoutMs: positive(env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? env.OTEL_EXPORTER_OTLP_TIMEOUT, 10_000),
    scheduleDelayMs: positive(env.OTEL_BSP_SCHEDULE_DELAY, 5_000),
    maxQueueSize: positive(env.OTEL_BSP_MAX_QUEUE_SIZE, 2_048),
    maxExportBatchSize: Math.min(
      positive(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, 64),
      positive(env.OTEL_BSP_MAX_QUEUE_SIZE, 2_048),
    ),
    captureContent: env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === 'true',
    protocol: protocol === 'http/json' ? 'http/json' : 'http/protobuf',
    protocolNote:
      protocol && protocol !== 'http/json' && protocol !== 'http/protobuf'
        ? `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol}: Errand sends traces over OTLP/HTTP only, as http/protobuf (set http/json for JSON)`
        : null,
  };
}
