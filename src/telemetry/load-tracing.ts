import type { Logger } from '../logger.js';
import { traceSettingsFrom } from './trace-settings.js';
import { noopTracing, type Tracing } from './tracing.js';

/**
 * Traces as the environment asks for them: with OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) set, the
 * OpenTelemetry SDK is imported (dynamically, here and nowhere else) and spans go to the collector; without
 * it nothing of OpenTelemetry is loaded and every span is a plain call.
 */
export async function loadTracing(env: NodeJS.ProcessEnv, logger: Logger): Promise<Tracing> {
  const settings = traceSettingsFrom(env);
  if (!settings) return noopTracing;
  const { createOtelTracing } = await import('./otel-tracing.js');
  const tracing = await createOtelTracing(settings, logger);
  logger.info(
    { url: settings.url, service: settings.serviceName, captureContent: settings.captureContent },
    'traces on: spans go to the OTLP/HTTP collector',
  );
  return tracing;
}
