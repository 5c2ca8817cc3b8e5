import type { BudgetStop, BudgetUnit } from './budget-stop.js';
import { formatUsd } from './pricing.js';
import { describeReset } from './utc-day.js';

const n = (tokens: number) => tokens.toLocaleString('en-US');
/** An amount of a budget's unit as the note says it: `12,000 tokens` or `$1.50`. */
const amount = (unit: BudgetUnit, value: number) => (unit === 'usd' ? formatUsd(value) : `${n(value)} tokens`);
const noun = (unit: BudgetUnit) => (unit === 'usd' ? 'spending' : 'token');
/** A bare figure of the unit (the sentence already named it): `1,000` or `$0.2400`. */
const figure = (unit: BudgetUnit, value: number) => (unit === 'usd' ? formatUsd(value) : n(value));

/** The private refusal of a new request past a daily budget (the person reads it; nobody else does). */
export function dailyRefusalText(stop: Exclude<BudgetStop, { scope: 'run' }>): string {
  const reset = describeReset(stop.resetsInMs);
  if (stop.scope === 'user_day') {
    return `🪙 You've used your daily budget of ${amount(stop.unit, stop.limit)} (${figure(stop.unit, stop.used)} today), so I can't take this request. It resets at ${reset}.`;
  }
  return `🪙 Today's ${noun(stop.unit)} budget for everyone here (${amount(stop.unit, stop.limit)}) is used up, so I can't take this request. It resets at ${reset}.`;
}

/**
 * The note posted in the thread when a run stops (or cannot start) for its budget. `runTokens` is what
 * the run used: 0 means it never called the model.
 */
export function budgetStopNote(stop: BudgetStop, runTokens: number): string {
  if (stop.scope === 'run') {
    const used = stop.unit === 'usd' ? `cost ${formatUsd(stop.used)}` : `used ${n(stop.used)} tokens`;
    return `🪙 I stopped: this run ${used}, past its budget of ${amount(stop.unit, stop.limit)} per run. Ask me to continue if you want me to keep going.`;
  }
  const whose =
    stop.scope === 'user_day'
      ? `<@${stop.userId}>'s daily ${noun(stop.unit)} budget (${figure(stop.unit, stop.limit)})`
      : `Today's ${noun(stop.unit)} budget for everyone (${figure(stop.unit, stop.limit)})`;
  const what = runTokens > 0 ? `I stopped after ${n(runTokens)} tokens` : "I didn't start this";
  return `🪙 ${what}: ${whose} is used up. It resets at ${describeReset(stop.resetsInMs)}.`;
}
