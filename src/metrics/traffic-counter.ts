import type { PlatformTraffic } from '../chat/platform-traffic.js';
import type { Metrics } from './metrics.js';

/** The traffic hook an adapter gets in its options, counting into `errand_outbound_messages_total` and `errand_platform_rate_limited_total`. */
export function trafficCounter(metrics: Metrics, platform: string): PlatformTraffic {
  return { posted: () => metrics.outbound(platform), rateLimited: () => metrics.rateLimited(platform) };
}
