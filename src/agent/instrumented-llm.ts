import type { LlmClient } from './llm-client.js';
import type { Metrics } from '../metrics/metrics.js';

/**
 * Wraps the model client so every request's duration and token usage reach the metrics,
 * failed and aborted requests included (their time was spent too). `elapsedMs` is a
 * monotonic clock, injected so tests can drive it.
 */
export function instrumentLlm(llm: LlmClient, metrics: Metrics, elapsedMs: () => number = () => performance.now()): LlmClient {
  return {
    async complete(request) {
      const started = elapsedMs();
      try {
        const response = await llm.complete(request);
        metrics.modelRequest((elapsedMs() - started) / 1000, response.usage ?? null);
        return response;
      } catch (err) {
        metrics.modelRequest((elapsedMs() - started) / 1000, null);
        throw err;
      }
    },
  };
}
