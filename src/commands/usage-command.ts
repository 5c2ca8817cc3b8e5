import type { Person } from '../access/access-policy.js';
import { buildUsageReport } from '../budget/usage-report.js';
import type { UsageStore } from '../budget/usage-store.js';
import type { CostStore } from '../budget/cost-store.js';
import type { CommandReply, InboundCommand } from '../chat/inbound.js';
import type { LimitsSettings, PricingSettings } from '../settings/team-settings.js';

/** What `/usage` reads: recorded usage, the limits, and who may see everyone's. */
export interface UsageCommandDeps {
  readonly store: UsageStore;
  /** Usage per model and dollars. */
  readonly cost: CostStore;
  readonly limits: LimitsSettings;
  /** Prices per model: with any, dollars show beside tokens. */
  readonly pricing: PricingSettings;
  /** Admins (the `access` key) also see everyone's totals and the heaviest users. */
  isAdmin(person: Person): boolean;
  now(): number;
}

/** `/usage`: your tokens (and dollars, with prices) today and over the last 30 days (admins: everyone's too), with the limits and what is left. */
export async function handleUsageCommand(
  cmd: InboundCommand,
  deps: UsageCommandDeps | undefined,
): Promise<CommandReply> {
  if (!deps) return { text: 'Usage is not recorded in this installation.' };
  const person = { platform: cmd.channel.platform, userId: cmd.userId, ...(cmd.roles ? { roles: cmd.roles } : {}) };
  return {
    text: await buildUsageReport({
      store: deps.store,
      cost: deps.cost,
      limits: deps.limits,
      pricing: deps.pricing,
      platform: person.platform,
      userId: person.userId,
      admin: deps.isAdmin(person),
      now: deps.now(),
    }),
  };
}
