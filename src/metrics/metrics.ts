/** How a run ended, as counted by `errand_runs_total{outcome}` (the run's final status). */
export type RunOutcomeLabel = 'completed' | 'failed' | 'cancelled' | 'interrupted';

/** What became of a schedule's fire: the run was launched, the launch failed, or it was too late and skipped. */
export type ScheduleFireOutcome = 'started' | 'failed' | 'skipped';

/**
 * What became of an OAuth step for an MCP server (`errand_mcp_oauth_total{server,outcome}`): a token handed out
 * (`token`, after a `refreshed` one when due), a sign-in asked for (`authorize`), the authorization server out of
 * reach (`unavailable`), or how a sign-in's callback ended.
 */
export type OAuthOutcomeLabel =
  | 'token'
  | 'refreshed'
  | 'authorize'
  | 'unavailable'
  | 'connected'
  | 'denied'
  | 'expired'
  | 'used'
  | 'failed'
  | 'unknown';

/** Tokens one model request used, as the endpoint reported them. */
export interface TokenUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

/**
 * The events the core reports for `/metrics`. Each call is made where the event happens, so
 * counting costs a function call, never a query. `noopMetrics` is used when METRICS_PORT is
 * unset, which keeps prom-client out of memory entirely.
 */
export interface Metrics {
  /** A run reached a final status; `seconds` from its start (null when unknown). */
  runFinished(outcome: RunOutcomeLabel, seconds: number | null): void;
  /** One model request (retries included) took `seconds`; usage when the endpoint reported it. */
  modelRequest(seconds: number, usage: TokenUsage | null): void;
  /** What one model request cost in dollars at the configured price of `model` (only priced models are reported). */
  modelCost(model: string, usd: number): void;
  /** An adapter delivered an inbound event (message, command or button click) to the core. */
  inbound(platform: string): void;
  /** A message was posted on the platform (each part of a split text counts). */
  outbound(platform: string): void;
  /** The platform answered a call with HTTP 429. */
  rateLimited(platform: string): void;
  scheduleFired(outcome: ScheduleFireOutcome): void;
  /** One OAuth step for an MCP server (never a token or a person in the labels). */
  mcpOAuth(server: string, outcome: OAuthOutcomeLabel): void;
}

const nothing = (): void => {};

/** Metrics that record nothing: the default, so tests and benchmarks pay nothing for them. */
export const noopMetrics: Metrics = {
  runFinished: nothing,
  modelRequest: nothing,
  modelCost: nothing,
  inbound: nothing,
  outbound: nothing,
  rateLimited: nothing,
  scheduleFired: nothing,
  mcpOAuth: nothing,
};
