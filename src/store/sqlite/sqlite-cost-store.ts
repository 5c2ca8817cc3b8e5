import { z } from 'zod';
import type { ModelCharge } from '../../budget/budget-stop.js';
import type { CostStore } from '../../budget/cost-store.js';
import type { Db } from '../../db/client.js';
import type { Synchronous } from './synchronous.js';
import { writeGroup } from './write-group.js';

const usdRow = z.object({ usd: z.number().nullable() }).optional();
const modelRows = z.array(
  z.object({
    model: z.string(),
    promptTokens: z.number(),
    completionTokens: z.number(),
    cachedTokens: z.number(),
    usd: z.number(),
  }),
);
const usdOf = (raw: unknown): number => usdRow.parse(raw)?.usd ?? 0;

/** Usage per model and run costs on SQLite: prepared statements; rows read back through zod. */
export function createSqliteCostStore(db: Db): Synchronous<CostStore> {
  const s = db.$client;
  const addToDay = s.prepare(
    `insert into usage_model_daily (day, user, model, prompt_tokens, completion_tokens, cached_tokens, cost_usd) values (?, ?, ?, ?, ?, ?, ?)
     on conflict (day, user, model) do update set prompt_tokens = prompt_tokens + excluded.prompt_tokens,
       completion_tokens = completion_tokens + excluded.completion_tokens, cached_tokens = cached_tokens + excluded.cached_tokens,
       cost_usd = cost_usd + excluded.cost_usd`,
  );
  const addToRun = s.prepare(
    `insert into run_costs (run_id, cost_usd) values (?, ?) on conflict (run_id) do update set cost_usd = cost_usd + excluded.cost_usd returning cost_usd as usd`,
  );
  const runUsd = s.prepare('select cost_usd as usd from run_costs where run_id = ?');
  const userDay = s.prepare('select sum(cost_usd) as usd from usage_model_daily where day = ? and user = ?');
  const teamDay = s.prepare('select sum(cost_usd) as usd from usage_model_daily where day = ?');
  const userSince = s.prepare('select sum(cost_usd) as usd from usage_model_daily where user = ? and day >= ?');
  const cols = `model, sum(prompt_tokens) as promptTokens, sum(completion_tokens) as completionTokens, sum(cached_tokens) as cachedTokens, sum(cost_usd) as usd`;
  const order = 'group by model order by sum(cost_usd) desc, sum(prompt_tokens + completion_tokens) desc, model';
  const models = s.prepare(`select ${cols} from usage_model_daily where day >= ? ${order}`);
  const userModels = s.prepare(`select ${cols} from usage_model_daily where user = ? and day >= ? ${order}`);
  const atomic = writeGroup(s);
  const record = (runId: string, day: string, user: string, c: ModelCharge): number =>
    atomic(() => {
      addToDay.run(day, user, c.model, c.promptTokens, c.completionTokens, c.cachedTokens, c.usd);
      // A model without a price adds nothing to the run's cost: read it rather than write it.
      return usdOf(c.usd === 0 ? runUsd.get(runId) : addToRun.get(runId, c.usd));
    });
  return {
    record,
    runUsd: (runId) => usdOf(runUsd.get(runId)),
    userDayUsd: (day, user) => usdOf(userDay.get(day, user)),
    teamDayUsd: (day) => usdOf(teamDay.get(day)),
    userUsdSince: (user, fromDay) => usdOf(userSince.get(user, fromDay)),
    modelsSince: (fromDay, user) =>
      modelRows.parse(user === null ? models.all(fromDay) : userModels.all(user, fromDay)),
  };
}
