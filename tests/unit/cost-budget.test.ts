import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBudget, type Budget } from '../../src/budget/budget.js';
import { budgetStopNote } from '../../src/budget/budget-notices.js';
import type { CostStore } from '../../src/budget/cost-store.js';
import { costOf, formatUsd, unpricedModels } from '../../src/budget/pricing.js';
import { buildUsageReport } from '../../src/budget/usage-report.js';
import type { UsageStore } from '../../src/budget/usage-store.js';
import { closeDatabase, openDatabase, type Db } from '../../src/db/client.js';
import type { LimitsSettings, PricingSettings } from '../../src/settings/team-settings.js';
import { createSqliteStore } from '../../src/composition/sqlite-store.js';
import { FakeClock } from '../fakes/fake-clock.js';

const NINE_AM = Date.UTC(2026, 0, 5, 9, 0, 0);
const ALICE = { platform: 'slack', userId: 'U0ALICE01' };
const BOB = { platform: 'slack', userId: 'U0BOB0001' };
/** $1 per million input tokens, $0.50 cached, $4 output: round numbers to check by hand. */
const PRICING: PricingSettings = {
  'gpt-4o-mini': { inputPerMTok: 1, outputPerMTok: 4, cachedInputPerMTok: 0.5 },
  'gpt-4o': { inputPerMTok: 10, outputPerMTok: 40 },
};

let dir = '';
let db: Db;
let usage: UsageStore;
let cost: CostStore;
let now = NINE_AM;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'errand-cost-'));
  db = openDatabase(join(dir, 'errand.db'));
  const store = createSqliteStore(db, new FakeClock());
  usage = store.usage;
  cost = store.cost;
  now = NINE_AM;
});
afterEach(() => {
  closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
});

function run(id: string): string {
  db.$client
    .prepare(
      "insert into conversations (id, platform, workspace, channel, thread, created_at, updated_at) values ('c', 'slack', 'T1', 'C1', null, 0, 0) on conflict do nothing",
    )
    .run();
  db.$client
    .prepare(
      "insert into runs (id, conversation_id, status, started_at, updated_at) values (?, 'c', 'completed', 0, 0)",
    )
    .run(id);
  return id;
}
const budget = (limits: LimitsSettings, shared = false): Budget =>
  createBudget({ store: usage, cost, limits, pricing: PRICING, now: () => now, shared });
/** 100 000 prompt tokens (40 000 of them cached) and 10 000 completion tokens of gpt-4o-mini: $0.06 + $0.02 + $0.04 = $0.12. */
const mini = { promptTokens: 100_000, completionTokens: 10_000, cachedTokens: 40_000, model: 'gpt-4o-mini' };

describe('prices', () => {
  it('charges uncached input, cached input and output at their own prices per million tokens', () => {
    expect(costOf(PRICING, 'gpt-4o-mini', mini)).toBeCloseTo(0.12, 10);
    // No cached price: cached input is billed as input.
    expect(costOf(PRICING, 'gpt-4o', { promptTokens: 1000, completionTokens: 1000, cachedTokens: 500 })).toBeCloseTo(
      0.05,
      10,
    );
    expect(costOf(PRICING, 'llama3', mini)).toBe(0);
  });

  it('names the models in use that have no price, once each', () => {
    expect(unpricedModels(PRICING, ['gpt-4o-mini', 'llama3', 'gpt-4o', 'llama3', 'qwen'])).toEqual(['llama3', 'qwen']);
  });

  it('shows dollars in cents from a dollar on, with four decimals below', () => {
    expect(formatUsd(1234.5)).toBe('$1,234.50');
    expect(formatUsd(0.12)).toBe('$0.1200');
    expect(formatUsd(0)).toBe('$0');
  });
});

describe('dollar budgets', () => {
  it('records each response per person, day and model with its cached tokens and price, and the run its cost', async () => {
    const r = budget({}).forRun(run('r1'), ALICE, 0);
    await r.record(mini);
    await r.record({ promptTokens: 1000, completionTokens: 1000, model: 'gpt-4o' });
    expect(r.spentUsd()).toBeCloseTo(0.17, 10);
    expect(await cost.runUsd('r1')).toBeCloseTo(0.17, 10);
    expect(await cost.userDayUsd('2026-01-05', 'slack:U0ALICE01')).toBeCloseTo(0.17, 10);
    const models = await cost.modelsSince('2026-01-01', 'slack:U0ALICE01');
    expect(models.map((m) => m.model)).toEqual(['gpt-4o-mini', 'gpt-4o']);
    expect(models[0]).toMatchObject({ promptTokens: 100_000, completionTokens: 10_000, cachedTokens: 40_000 });
    // The token totals are charged as before.
    expect(await usage.userDay('2026-01-05', 'slack:U0ALICE01')).toEqual({
      promptTokens: 101_000,
      completionTokens: 11_000,
    });
  });

  it('stops a run once it has cost more than usdPerRun, counting what it cost before a resume', async () => {
    const b = budget({ usdPerRun: 0.2 });
    await b.forRun(run('r1'), ALICE, 0).record(mini);
    const resumed = b.forRun('r1', ALICE, 110_000);
    expect(await resumed.exceeded()).toBeNull();
    expect(resumed.spentUsd()).toBeCloseTo(0.12, 10);
    await resumed.record(mini);
    expect(await resumed.exceeded()).toMatchObject({ scope: 'run', unit: 'usd', limit: 0.2 });
    const stop = await resumed.exceeded();
    expect(budgetStopNote(stop!, 220_000)).toBe(
      '🪙 I stopped: this run cost $0.2400, past its budget of $0.2000 per run. Ask me to continue if you want me to keep going.',
    );
  });

  it('refuses a person past usdPerUserPerDay with the reset time, and nobody else', async () => {
    const b = budget({ usdPerUserPerDay: 0.2 });
    const r = b.forRun(run('r1'), ALICE, 0);
    await r.record(mini);
    expect(await b.refusalFor(ALICE)).toBeNull();
    await r.record(mini);
    expect(await b.refusalFor(ALICE)).toBe(
      "🪙 You've used your daily budget of $0.2000 ($0.2400 today), so I can't take this request. It resets at 00:00 UTC, in 15 h.",
    );
    expect(await b.refusalFor(BOB)).toBeNull();
    // A run in progress stops at its next step, with the person named.
    const stop = await r.exceeded();
    expect(stop).toMatchObject({ scope: 'user_day', unit: 'usd', userId: 'U0ALICE01' });
    expect(budgetStopNote(stop!, 220_000)).toBe(
      "🪙 I stopped after 220,000 tokens: <@U0ALICE01>'s daily spending budget ($0.2000) is used up. It resets at 00:00 UTC, in 15 h.",
    );
  });

  it('refuses everyone once usdPerDay is spent, and starts the next UTC day afresh', async () => {
    const b = budget({ usdPerDay: 0.2 });
    await b.forRun(run('r1'), ALICE, 0).record(mini);
    await b.forRun(run('r2'), BOB, 0).record(mini);
    expect(await b.refusalFor({ platform: 'discord', userId: '223344556677889900' })).toBe(
      "🪙 Today's spending budget for everyone here ($0.2000) is used up, so I can't take this request. It resets at 00:00 UTC, in 15 h.",
    );
    now = Date.UTC(2026, 0, 6, 0, 0, 1);
    expect(await b.refusalFor(ALICE)).toBeNull();
  });

  it('with a store other processes charge too, sees their spending at the next check', async () => {
    const here = budget({ usdPerUserPerDay: 0.2 }, true);
    const elsewhere = budget({ usdPerUserPerDay: 0.2 }, true);
    expect(await here.refusalFor(ALICE)).toBeNull();
    const r = elsewhere.forRun(run('r1'), ALICE, 0);
    await r.record(mini);
    await r.record(mini);
    expect(await here.refusalFor(ALICE)).toMatch(/daily budget of \$0\.2000/);
  });

  it('charges a response without a price as $0 under its model name', async () => {
    const b = budget({ usdPerUserPerDay: 0.01 });
    await b.forRun(run('r1'), ALICE, 0).record({ promptTokens: 5000, completionTokens: 5000, model: 'llama3' });
    expect(await b.refusalFor(ALICE)).toBeNull();
    expect(await cost.modelsSince('2026-01-05', null)).toEqual([
      { model: 'llama3', promptTokens: 5000, completionTokens: 5000, cachedTokens: 0, usd: 0 },
    ]);
  });
});

describe('/usage with prices', () => {
  beforeEach(async () => {
    const b = budget({});
    await b.forRun(run('r1'), ALICE, 0).record(mini);
    await b.forRun(run('r2'), BOB, 0).record({ promptTokens: 1000, completionTokens: 1000, model: 'gpt-4o' });
  });

  it("shows a person's dollars beside their tokens, and the dollar limits with what is left", async () => {
    const text = await buildUsageReport({
      store: usage,
      cost,
      limits: { usdPerUserPerDay: 1, usdPerRun: 0.5 },
      pricing: PRICING,
      platform: 'slack',
      userId: 'U0ALICE01',
      admin: false,
      now,
    });
    expect(text).toContain(
      '**Your usage**: today 110,000 tokens (prompt 100,000 / completion 10,000) · $0.1200, last 30 days 110,000 · $0.1200.',
    );
    expect(text).toContain('• Per person per day: $1.00 — $0.8800 left today');
    expect(text).toContain('• Per run: $0.5000');
    expect(text).not.toContain('gpt-4o');
    expect(text).not.toContain('U0BOB0001');
  });

  it('shows admins dollars per person and per model', async () => {
    const text = await buildUsageReport({
      store: usage,
      cost,
      limits: {},
      pricing: PRICING,
      platform: 'slack',
      userId: 'U0ALICE01',
      admin: true,
      now,
    });
    expect(text).toContain(
      '**Everyone**: today 112,000 tokens (prompt 101,000 / completion 11,000) · $0.1700, last 30 days 112,000 · $0.1700.',
    );
    expect(text).toContain(
      '1. <@U0ALICE01> — 110,000 · $0.1200 (today 110,000)\n2. <@U0BOB0001> — 2,000 · $0.0500 (today 2,000)',
    );
    expect(text).toContain(
      '**By model, last 30 days**\n• `gpt-4o-mini` — 110,000 tokens (prompt 100,000, 40,000 cached / completion 10,000) · $0.1200\n• `gpt-4o` — 2,000 tokens (prompt 1,000 / completion 1,000) · $0.0500',
    );
  });

  it('shows no dollars where no price or dollar limit is configured', async () => {
    const text = await buildUsageReport({
      store: usage,
      cost,
      limits: {},
      pricing: {},
      platform: 'slack',
      userId: 'U0ALICE01',
      admin: true,
      now,
    });
    expect(text).not.toContain('$');
    expect(text).toContain('• `gpt-4o-mini` — 110,000 tokens');
  });
});
