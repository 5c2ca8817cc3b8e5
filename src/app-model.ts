import { instrumentLlm } from './agent/instrumented-llm.js';
import { createOpenAiClient, type LlmClient } from './agent/llm-client.js';
import { traceLlm } from './agent/traced-llm.js';
import type { AppOptions } from './app-contract.js';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics/metrics.js';
import type { Tracing } from './telemetry/tracing.js';

/**
 * The model every run and summary asks: the options' client (tests) or the OpenAI-compatible endpoint of the
 * environment, measured for /metrics when monitoring is on, and traced (a no-op without OpenTelemetry).
 */
export function createAppModel(deps: {
  config: Config;
  options: Pick<AppOptions, 'llm' | 'modelBackoffMs' | 'monitoring'>;
  logger: Logger;
  metrics: Metrics;
  tracing: Tracing;
  /** The `traceparent` of a run executing here, so that its requests hang under its span. */
  parentOf: (runId: string) => string | null;
}): LlmClient {
  const { config, options, logger } = deps;
  const model =
    options.llm ??
    createOpenAiClient({
      apiKey: config.OPENAI_API_KEY,
      baseUrl: config.OPENAI_BASE_URL,
      model: config.OPENAI_MODEL,
      timeoutMs: config.OPENAI_TIMEOUT_SECONDS * 1000,
      maxTokens: config.OPENAI_MAX_TOKENS,
      stream: config.STREAMING,
      logger,
      ...(options.modelBackoffMs ? { backoffMs: options.modelBackoffMs } : {}),
    });
  const measured = options.monitoring
    ? instrumentLlm(model, deps.metrics, undefined, config.file.settings.pricing)
    : model;
  return traceLlm(measured, deps.tracing, {
    defaultModel: config.OPENAI_MODEL,
    streamed: config.STREAMING,
    baseUrl: config.OPENAI_BASE_URL,
    parentOf: deps.parentOf,
  });
}
