import type { LimitsSettings } from '../settings/team-settings.js';
import { payerKey } from './budget.js';
import type { TokenTotals, UsageStore } from './usage-store.js';
import { describeReset, msUntilUtcMidnight, utcDay, utcDayBefore } from './utc-day.js';

/** How many people an admin's report lists. */
export const TOP_USERS = 20;
/** The window of "last 30 days": today and the 29 UTC days before it. */
const WINDOW_DAYS = 30;

export interface UsageReportInput {
  readonly store: UsageStore;
  readonly limits: LimitsSettings;
  readonly platform: string;
  readonly userId: string;
  readonly admin: boolean;
  readonly now: number;
}

const n = (tokens: number) => tokens.toLocaleString('en-US');
const total = (t: TokenTotals) => t.promptTokens + t.completionTokens;
const split = (t: TokenTotals) => `${n(total(t))} tokens (prompt ${n(t.promptTokens)} / completion ${n(t.completionTokens)})`;
const left = (limit: number, used: number) => `${n(limit)} — ${n(Math.max(0, limit - used))} left today`;

/** A stored user key as a person reads it: a mention on their own platform, else the key itself. */
function displayUser(key: string, platform: string): string {
  const [keyPlatform, ...rest] = key.split(':');
  return keyPlatform === platform && platform !== 'console' && rest.length > 0 ? `<@${rest.join(':')}>` : `\`${key}\``;
}

/**
 * The `/usage` text: the asker's tokens today and over 30 days, the configured limits with what is
 * left, and for admins everyone's totals and the heaviest users. Days are UTC, like the budgets.
 */
export async function buildUsageReport(input: UsageReportInput): Promise<string> {
  const { store, limits, now } = input;
  const today = utcDay(now);
  const from = utcDayBefore(now, WINDOW_DAYS - 1);
  const me = payerKey(input.platform, input.userId);
  const mine = await store.userDay(today, me);
  const lines = [`**Your usage**: today ${split(mine)}, last 30 days ${n(total(await store.userSince(me, from)))}.`];

  const team = limits.tokensPerDay !== undefined || input.admin ? await store.teamDay(today) : null;
  const limitLines = [
    limits.tokensPerUserPerDay !== undefined ? `• Per person per day: ${left(limits.tokensPerUserPerDay, total(mine))}` : '',
    limits.tokensPerDay !== undefined && team ? `• Everyone together per day: ${left(limits.tokensPerDay, total(team))}` : '',
    limits.tokensPerRun !== undefined ? `• Per run: ${n(limits.tokensPerRun)}` : '',
  ].filter((l) => l !== '');
  if (limitLines.length > 0) {
    lines.push('', '**Limits**', ...limitLines);
    if (limits.tokensPerUserPerDay !== undefined || limits.tokensPerDay !== undefined) lines.push(`Daily budgets reset at ${describeReset(msUntilUtcMidnight(now))}.`);
  }

  if (input.admin && team) {
    lines.push('', `**Everyone**: today ${split(team)}, last 30 days ${n(total(await store.teamSince(from)))}.`);
    const top = await store.topUsersSince(from, TOP_USERS);
    if (top.length > 0) {
      lines.push(`**Top ${top.length === 1 ? 'user' : `${top.length} users`}, last 30 days**`);
      for (const [i, u] of top.entries()) lines.push(`${i + 1}. ${displayUser(u.user, input.platform)} — ${n(total(u))} (today ${n(total(await store.userDay(today, u.user)))})`);
    }
  }
  return lines.join('\n');
}
