import type {
  Metrics,
  OAuthOutcomeLabel,
  RunOutcomeLabel,
  ScheduleFireOutcome,
  TokenUsage,
} from '../../src/metrics/metrics.js';

/** A Metrics that records every call, for tests that check what the core reports. */
export class RecordingMetrics implements Metrics {
  readonly runs: { outcome: RunOutcomeLabel; seconds: number | null }[] = [];
  readonly modelRequests: { seconds: number; usage: TokenUsage | null }[] = [];
  readonly costs: { model: string; usd: number }[] = [];
  readonly inbounds: string[] = [];
  readonly outbounds: string[] = [];
  readonly rateLimits: string[] = [];
  readonly scheduleFires: ScheduleFireOutcome[] = [];
  readonly oauth: { server: string; outcome: OAuthOutcomeLabel }[] = [];

  runFinished(outcome: RunOutcomeLabel, seconds: number | null): void {
    this.runs.push({ outcome, seconds });
  }
  modelRequest(seconds: number, usage: TokenUsage | null): void {
    this.modelRequests.push({ seconds, usage });
  }
  modelCost(model: string, usd: number): void {
    this.costs.push({ model, usd });
  }
  inbound(platform: string): void {
    this.inbounds.push(platform);
  }
  outbound(platform: string): void {
    this.outbounds.push(platform);
  }
  rateLimited(platform: string): void {
    this.rateLimits.push(platform);
  }
  scheduleFired(outcome: ScheduleFireOutcome): void {
    this.scheduleFires.push(outcome);
  }
  mcpOAuth(server: string, outcome: OAuthOutcomeLabel): void {
    this.oauth.push({ server, outcome });
  }
}
