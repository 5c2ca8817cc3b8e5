import type { LlmClient } from './llm-client.js';
import { StoppedRequestError } from './stopped-request.js';
import { stoppedRequestCharge } from './stopped-request-charge.js';
import type { Metrics } from '../metrics/metrics.js';
import { costOf } from '../budget/pricing.js';
import type { PricingSettings } from '../settings/team-settings.js';

/**
 * Wraps the model client so every request's duration and token usage reach the metrics,
 * failed and aborted requests included (their time was spent too), and a priced model's cost
 * reaches `errand_cost_usd_total{model}` (labels only from `pricing`, so they stay few).
 * `elapsedMs` is a monotonic clock, injected so tests can drive it.
 */
export function instrumentLlm(
  llm: LlmClient,
  metrics: Metrics,
  elapsedMs: () => number = () => performance.now(),
  pricing: PricingSettings = {},
): LlmClient {
  return {
    async complete(request) {
      const started = elapsedMs();
      try {
        const response = await llm.complete(request);
        const usage = response.usage ?? null;
        metrics.modelRequest((elapsedMs() - started) / 1000, usage);
        if (usage?.model !== undefined && pricing[usage.model])
          metrics.modelCost(usage.model, costOf(pricing, usage.model, usage));
        return response;
      } catch (err) {
        // A stopped stream spent tokens: counted as charged (its usage, or the estimate), priced like an answer.
        const usage = err instanceof StoppedRequestError ? stoppedRequestCharge(err, request) : null;
        metrics.modelRequest((elapsedMs() - started) / 1000, usage);
        if (usage?.model !== undefined && pricing[usage.model])
          metrics.modelCost(usage.model, costOf(pricing, usage.model, usage));
        throw err;
      }
    },
  };
}
