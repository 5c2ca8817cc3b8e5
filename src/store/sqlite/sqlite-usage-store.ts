import { z } from 'zod';
import type { TokenUsage } from '../../budget/budget-stop.js';
import type { TokenTotals, UsageStore } from '../../budget/usage-store.js';
import type { Db } from '../../db/client.js';
import type { Synchronous } from './synchronous.js';
import { writeGroup } from './write-group.js';

const totalsRow = z.object({ promptTokens: z.number().nullable(), completionTokens: z.number().nullable() }).optional();
const userRows = z.array(z.object({ user: z.string(), promptTokens: z.number(), completionTokens: z.number() }));
const tokensRow = z.object({ tokens: z.number() }).optional();

const totalsOf = (raw: unknown): TokenTotals => {
  const row = totalsRow.parse(raw);
  return { promptTokens: row?.promptTokens ?? 0, completionTokens: row?.completionTokens ?? 0 };
};

/** Usage on SQLite: prepared statements; rows read back through zod. */
export function createSqliteUsageStore(db: Db): Synchronous<UsageStore> {
  const s = db.$client;
  const addToRun = s.prepare('update runs set tokens = tokens + ? where id = ? returning tokens');
  const addToDay = s.prepare(
    `insert into usage_daily (day, user, prompt_tokens, completion_tokens) values (?, ?, ?, ?)
     on conflict (day, user) do update set prompt_tokens = prompt_tokens + excluded.prompt_tokens, completion_tokens = completion_tokens + excluded.completion_tokens`,
  );
  const cols = 'sum(prompt_tokens) as promptTokens, sum(completion_tokens) as completionTokens';
  const userDay = s.prepare(
    `select prompt_tokens as promptTokens, completion_tokens as completionTokens from usage_daily where day = ? and user = ?`,
  );
  const teamDay = s.prepare(`select ${cols} from usage_daily where day = ?`);
  const userSince = s.prepare(`select ${cols} from usage_daily where user = ? and day >= ?`);
  const teamSince = s.prepare(`select ${cols} from usage_daily where day >= ?`);
  const top = s.prepare(
    `select user, ${cols} from usage_daily where day >= ? group by user order by sum(prompt_tokens + completion_tokens) desc, user limit ?`,
  );
  // Inside the answer's own transaction (the usual case) the two writes join it: no savepoint on the message path.
  const atomic = writeGroup(s);
  const record = (runId: string, day: string, user: string, usage: TokenUsage): number =>
    atomic(() => {
      addToDay.run(day, user, usage.promptTokens, usage.completionTokens);
      return tokensRow.parse(addToRun.get(usage.promptTokens + usage.completionTokens, runId))?.tokens ?? 0;
    });
  return {
    record: (runId, day, user, usage) => record(runId, day, user, usage),
    userDay: (day, user) => totalsOf(userDay.get(day, user)),
    teamDay: (day) => totalsOf(teamDay.get(day)),
    userSince: (user, fromDay) => totalsOf(userSince.get(user, fromDay)),
    teamSince: (fromDay) => totalsOf(teamSince.get(fromDay)),
    topUsersSince: (fromDay, limit) => userRows.parse(top.all(fromDay, limit)),
  };
}
