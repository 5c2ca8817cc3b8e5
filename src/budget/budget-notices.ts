import type { BudgetStop } from './budget-stop.js';
import { describeReset } from './utc-day.js';

const n = (tokens: number) => tokens.toLocaleString('en-US');

/** The private refusal of a new request past a daily budget (the person reads it; nobody else does). */
export function dailyRefusalText(stop: Exclude<BudgetStop, { scope: 'run' }>): string {
  const reset = describeReset(stop.resetsInMs);
  if (stop.scope === 'user_day') {
    return `🪙 You've used your daily budget of ${n(stop.limit)} tokens (${n(stop.used)} today), so I can't take this request. It resets at ${reset}.`;
  }
  return `🪙 Today's token budget for everyone here (${n(stop.limit)} tokens) is used up, so I can't take this request. It resets at ${reset}.`;
}

/**
 * The note posted in the thread when a run stops (or cannot start) for its budget. `runTokens` is what
 * the run used: 0 means it never called the model.
 */
export function budgetStopNote(stop: BudgetStop, runTokens: number): string {
  if (stop.scope === 'run') {
    return `🪙 I stopped: this run used ${n(stop.used)} tokens, past its budget of ${n(stop.limit)} tokens per run. Ask me to continue if you want me to keep going.`;
  }
  const whose = stop.scope === 'user_day' ? `<@${stop.userId}>'s daily token budget (${n(stop.limit)})` : `Today's token budget for everyone (${n(stop.limit)})`;
  const what = runTokens > 0 ? `I stopped after ${n(runTokens)} tokens` : "I didn't start this";
  return `🪙 ${what}: ${whose} is used up. It resets at ${describeReset(stop.resetsInMs)}.`;
}
