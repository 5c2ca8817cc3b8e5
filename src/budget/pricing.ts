import type { PricingSettings } from '../settings/team-settings.js';
import type { TokenUsage } from './budget-stop.js';

const PER_MILLION = 1_000_000;

/**
 * What one response cost in dollars at the configured prices: uncached input at `inputPerMTok`, cached input at
 * `cachedInputPerMTok` (the input price when none is given), output at `outputPerMTok`. A model without a price
 * costs 0 (a start-up warning says so: see `unpricedModels`).
 */
export function costOf(pricing: PricingSettings, model: string, usage: TokenUsage): number {
  const price = pricing[model];
  if (!price) return 0;
  const cached = Math.min(usage.cachedTokens ?? 0, usage.promptTokens);
  const fresh = usage.promptTokens - cached;
  return (
    (fresh * price.inputPerMTok +
      cached * (price.cachedInputPerMTok ?? price.inputPerMTok) +
      usage.completionTokens * price.outputPerMTok) /
    PER_MILLION
  );
}

/** Whether dollars mean anything here: some model has a price, or a dollar limit is set. */
export function dollarsConfigured(
  pricing: PricingSettings,
  limits: { usdPerRun?: number; usdPerUserPerDay?: number; usdPerDay?: number },
): boolean {
  return (
    Object.keys(pricing).length > 0 ||
    limits.usdPerRun !== undefined ||
    limits.usdPerUserPerDay !== undefined ||
    limits.usdPerDay !== undefined
  );
}

/**
 * The models in use (the default, the compaction model, channels' own) that have no price, when dollars are
 * configured at all: their requests would count as free against dollar limits and in `/usage`, so start-up warns.
 */
export function unpricedModels(pricing: PricingSettings, inUse: readonly string[]): string[] {
  return [...new Set(inUse)].filter((m) => pricing[m] === undefined).sort();
}

/** Dollars as a person reads them: cents for a dollar or more, four decimals below (a request costs fractions of a cent). */
export function formatUsd(usd: number): string {
  if (usd >= 1) return `$${usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  if (usd === 0) return '$0';
  return `$${usd.toFixed(4)}`;
}

/**
 * The start-up warning for models in use without a price, or null: only when dollars are configured (a price or
 * a dollar limit), since without them nobody expects dollars.
 */
export function unpricedWarning(
  pricing: PricingSettings,
  limits: Parameters<typeof dollarsConfigured>[1],
  inUse: readonly string[],
): string | null {
  if (!dollarsConfigured(pricing, limits)) return null;
  const missing = unpricedModels(pricing, inUse);
  if (missing.length === 0) return null;
  const list = missing.map((m) => `"${m}"`).join(', ');
  return `no price in the configuration file's "pricing" for ${list}: requests to ${missing.length === 1 ? 'it' : 'them'} count as $0 in /usage and against dollar limits. Add ${missing.length === 1 ? 'its' : 'their'} inputPerMTok and outputPerMTok.`;
}
