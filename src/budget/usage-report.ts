import type { LimitsSettings, PricingSettings } from '../settings/team-settings.js';
import { payerKey } from './budget.js';
import type { CostStore, ModelTotals } from './cost-store.js';
import { dollarsConfigured, formatUsd } from './pricing.js';
import type { TokenTotals, UsageStore } from './usage-store.js';
import { describeReset, msUntilUtcMidnight, utcDay, utcDayBefore } from './utc-day.js';

/** How many people an admin's report lists. */
export const TOP_USERS = 20;
/** How many models an admin's report lists. */
export const TOP_MODELS = 10;
/** The window of "last 30 days": today and the 29 UTC days before it. */
const WINDOW_DAYS = 30;

export interface UsageReportInput {
  readonly store: UsageStore;
  readonly cost: CostStore;
  readonly limits: LimitsSettings;
  /** Prices per model: with any (or any dollar limit) the report shows dollars beside tokens. */
  readonly pricing?: PricingSettings;
  readonly platform: string;
  readonly userId: string;
  readonly admin: boolean;
  readonly now: number;
}

const n = (tokens: number) => tokens.toLocaleString('en-US');
const total = (t: TokenTotals) => t.promptTokens + t.completionTokens;
const split = (t: TokenTotals) =>
  `${n(total(t))} tokens (prompt ${n(t.promptTokens)} / completion ${n(t.completionTokens)})`;
const left = (limit: number, used: number) => `${n(limit)} — ${n(Math.max(0, limit - used))} left today`;
const leftUsd = (limit: number, used: number) =>
  `${formatUsd(limit)} — ${formatUsd(Math.max(0, limit - used))} left today`;

/** A stored user key as a person reads it: a mention on their own platform, else the key itself. */
function displayUser(key: string, platform: string): string {
  const [keyPlatform, ...rest] = key.split(':');
  return keyPlatform === platform && platform !== 'console' && rest.length > 0 ? `<@${rest.join(':')}>` : `\`${key}\``;
}

/** One model's line: tokens (with the cached part of the prompt when any) and, when priced, dollars. */
function modelLine(m: ModelTotals, dollars: boolean): string {
  const cached = m.cachedTokens > 0 ? `, ${n(m.cachedTokens)} cached` : '';
  return `• \`${m.model}\` — ${n(m.promptTokens + m.completionTokens)} tokens (prompt ${n(m.promptTokens)}${cached} / completion ${n(m.completionTokens)})${dollars ? ` · ${formatUsd(m.usd)}` : ''}`;
}

/**
 * The `/usage` text: the asker's tokens (and dollars, when prices are configured) today and over 30 days, the
 * configured limits with what is left, and for admins everyone's totals, the heaviest users and the models.
 * Days are UTC, like the budgets.
 */
export async function buildUsageReport(input: UsageReportInput): Promise<string> {
  const { store, cost, limits, now } = input;
  const dollars = dollarsConfigured(input.pricing ?? {}, limits);
  const usd = (value: number) => (dollars ? ` · ${formatUsd(value)}` : '');
  const today = utcDay(now);
  const from = utcDayBefore(now, WINDOW_DAYS - 1);
  const me = payerKey(input.platform, input.userId);
  const mine = await store.userDay(today, me);
  const myUsdToday = dollars ? await cost.userDayUsd(today, me) : 0;
  const myUsd30 = dollars ? await cost.userUsdSince(me, from) : 0;
  const lines = [
    `**Your usage**: today ${split(mine)}${usd(myUsdToday)}, last 30 days ${n(total(await store.userSince(me, from)))}${usd(myUsd30)}.`,
  ];

  const team =
    limits.tokensPerDay !== undefined || limits.usdPerDay !== undefined || input.admin
      ? await store.teamDay(today)
      : null;
  const teamUsd = dollars && team ? await cost.teamDayUsd(today) : 0;
  const limitLines = [
    limits.tokensPerUserPerDay !== undefined
      ? `• Per person per day: ${left(limits.tokensPerUserPerDay, total(mine))}`
      : '',
    limits.usdPerUserPerDay !== undefined
      ? `• Per person per day: ${leftUsd(limits.usdPerUserPerDay, myUsdToday)}`
      : '',
    limits.tokensPerDay !== undefined && team
      ? `• Everyone together per day: ${left(limits.tokensPerDay, total(team))}`
      : '',
    limits.usdPerDay !== undefined ? `• Everyone together per day: ${leftUsd(limits.usdPerDay, teamUsd)}` : '',
    limits.tokensPerRun !== undefined ? `• Per run: ${n(limits.tokensPerRun)}` : '',
    limits.usdPerRun !== undefined ? `• Per run: ${formatUsd(limits.usdPerRun)}` : '',
  ].filter((l) => l !== '');
  if (limitLines.length > 0) {
    lines.push('', '**Limits**', ...limitLines);
    const daily = [limits.tokensPerUserPerDay, limits.tokensPerDay, limits.usdPerUserPerDay, limits.usdPerDay].some(
      (l) => l !== undefined,
    );
    if (daily) lines.push(`Daily budgets reset at ${describeReset(msUntilUtcMidnight(now))}.`);
  }

  if (input.admin && team) {
    const models = await cost.modelsSince(from, null);
    const teamUsd30 = models.reduce((sum, m) => sum + m.usd, 0);
    lines.push(
      '',
      `**Everyone**: today ${split(team)}${usd(teamUsd)}, last 30 days ${n(total(await store.teamSince(from)))}${usd(teamUsd30)}.`,
    );
    const top = await store.topUsersSince(from, TOP_USERS);
    if (top.length > 0) {
      lines.push(`**Top ${top.length === 1 ? 'user' : `${top.length} users`}, last 30 days**`);
      for (const [i, u] of top.entries()) {
        const spent = dollars ? usd(await cost.userUsdSince(u.user, from)) : '';
        lines.push(
          `${i + 1}. ${displayUser(u.user, input.platform)} — ${n(total(u))}${spent} (today ${n(total(await store.userDay(today, u.user)))})`,
        );
      }
    }
    if (models.length > 0)
      lines.push('**By model, last 30 days**', ...models.slice(0, TOP_MODELS).map((m) => modelLine(m, dollars)));
  }
  return lines.join('\n');
}
