import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBudget, type Budget } from '../../src/budget/budget.js';
import type { UsageStore } from '../../src/budget/usage-store.js';
import type { CostStore } from '../../src/budget/cost-store.js';
import { buildUsageReport } from '../../src/budget/usage-report.js';
import { describeReset, msUntilUtcMidnight, utcDay, utcDayBefore } from '../../src/budget/utc-day.js';
import { closeDatabase, openDatabase, type Db } from '../../src/db/client.js';
import { createSqliteStore } from '../../src/composition/sqlite-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import type { LimitsSettings, PricingSettings } from '../../src/settings/team-settings.js';
import { settleRun } from '../../src/runs/runtime/run-settlement.js';

const NINE_AM = Date.UTC(2026, 0, 5, 9, 0, 0);
const ALICE = { platform: 'slack', userId: 'U0ALICE01' };
const BOB = { platform: 'slack', userId: 'U0BOB0001' };

let dir = '';
let db: Db;
let store: UsageStore;
let cost: CostStore;
let now = NINE_AM;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'errand-budget-'));
  db = openDatabase(join(dir, 'errand.db'));
  const sqlite = createSqliteStore(db, new FakeClock());
  store = sqlite.usage;
  cost = sqlite.cost;
  now = NINE_AM;
});
afterEach(() => {
  closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
});

/** A run row to charge (usage is stored per run as well as per person and day). */
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
const budget = (limits: LimitsSettings, pricing: PricingSettings = {}): Budget =>
  createBudget({ store, cost, limits, pricing, now: () => now });
const use = (tokens: number) => ({
  promptTokens: tokens - Math.floor(tokens / 4),
  completionTokens: Math.floor(tokens / 4),
});

describe('UTC days and resets', () => {
  it('keys days in UTC and says when the next one starts', async () => {
    expect(utcDay(Date.UTC(2026, 0, 5, 23, 59))).toBe('2026-01-05');
    expect(utcDayBefore(NINE_AM, 29)).toBe('2025-12-07');
    expect(msUntilUtcMidnight(Date.UTC(2026, 0, 5, 20, 48))).toBe((3 * 60 + 12) * 60_000);
    expect(describeReset((3 * 60 + 12) * 60_000)).toBe('00:00 UTC, in 3 h 12 min');
    expect(describeReset(15 * 3_600_000)).toBe('00:00 UTC, in 15 h');
    expect(describeReset(30_000)).toBe('00:00 UTC, in 1 min');
  });
});

describe('token budgets', () => {
  it('without limits refuses nothing and still records usage per run and per person and day', async () => {
    const b = budget({});
    const r = b.forRun(run('r1'), ALICE, 0);
    await r.record(use(400));
    await r.record(use(400));
    expect(r.spent()).toBe(800);
    expect(await r.exceeded()).toBeNull();
    expect(await b.refusalFor(ALICE)).toBeNull();
    expect(db.$client.prepare("select tokens from runs where id = 'r1'").get()).toEqual({ tokens: 800 });
    expect(await store.userDay('2026-01-05', 'slack:U0ALICE01')).toEqual({ promptTokens: 600, completionTokens: 200 });
  });

  it('stops a run once it has passed tokensPerRun, counting what it used before a resume', async () => {
    const b = budget({ tokensPerRun: 1000 });
    await b.forRun(run('r1'), ALICE, 0).record(use(600));
    const r = b.forRun('r1', ALICE, 600);
    expect(await r.exceeded()).toBeNull();
    await r.record(use(400));
    expect(await r.exceeded()).toBeNull();
    await r.record(use(1));
    expect(await r.exceeded()).toEqual({ scope: 'run', unit: 'tokens', used: 1001, limit: 1000 });
  });

  it('refuses a person past tokensPerUserPerDay with the reset time, and nobody else', async () => {
    const b = budget({ tokensPerUserPerDay: 1000 });
    expect(await b.refusalFor(ALICE)).toBeNull();
    await b.forRun(run('r1'), ALICE, 0).record(use(1000));
    now = Date.UTC(2026, 0, 5, 20, 48);
    expect(await b.refusalFor(ALICE)).toBe(
      "🪙 You've used your daily budget of 1,000 tokens (1,000 today), so I can't take this request. It resets at 00:00 UTC, in 3 h 12 min.",
    );
    expect(await b.refusalFor(BOB)).toBeNull();
    expect(await b.dailyStop(ALICE)).toMatchObject({ scope: 'user_day', used: 1000, limit: 1000, userId: 'U0ALICE01' });
  });

  it('refuses everyone once tokensPerDay is used, whoever used it', async () => {
    const b = budget({ tokensPerDay: 1500 });
    await b.forRun(run('r1'), ALICE, 0).record(use(1000));
    expect(await b.refusalFor(BOB)).toBeNull();
    await b.forRun(run('r2'), null, 0).record(use(500));
    expect(await b.refusalFor(BOB)).toMatch(
      /^🪙 Today's token budget for everyone here \(1,500 tokens\) is used up, so I can't take this request\. It resets at 00:00 UTC, in 15 h\.$/,
    );
  });

  it('stops a run in progress when its payer passes a daily budget', async () => {
    const b = budget({ tokensPerUserPerDay: 1000 });
    const r = b.forRun(run('r1'), ALICE, 0);
    await r.record(use(999));
    expect(await r.exceeded()).toBeNull();
    await r.record(use(1));
    expect(await r.exceeded()).toMatchObject({ scope: 'user_day', used: 1000 });
  });

  it('starts every UTC day afresh', async () => {
    const b = budget({ tokensPerUserPerDay: 1000, tokensPerDay: 5000 });
    await b.forRun(run('r1'), ALICE, 0).record(use(1000));
    expect(await b.refusalFor(ALICE)).not.toBeNull();
    now = Date.UTC(2026, 0, 6, 0, 0, 1);
    expect(await b.refusalFor(ALICE)).toBeNull();
  });

  it('reads today from the database once, so usage recorded before a restart still counts', async () => {
    await budget({}).forRun(run('r1'), ALICE, 0).record(use(1000));
    const fresh = budget({ tokensPerUserPerDay: 1000 });
    expect(await fresh.refusalFor(ALICE)).toMatch(/daily budget of 1,000 tokens/);
  });

  it('with a store other processes charge too, reads the stored totals at every check until a limit is known to be passed', async () => {
    const reads: string[] = [];
    const counted: UsageStore = {
      ...store,
      userDay: (day, user) => (reads.push(`user ${user}`), store.userDay(day, user)),
      teamDay: (day) => (reads.push('team'), store.teamDay(day)),
    };
    const limits = { tokensPerUserPerDay: 1000, tokensPerDay: 1500 };
    const here = createBudget({ store: counted, cost, limits, now: () => now, shared: true });
    const elsewhere = createBudget({ store, cost, limits, now: () => now, shared: true });
    expect(await here.refusalFor(ALICE)).toBeNull();
    await elsewhere.forRun(run('r1'), ALICE, 0).record(use(1000));
    expect(await here.refusalFor(ALICE)).toMatch(/daily budget of 1,000 tokens \(1,000 today\)/);
    expect(reads).toEqual(['user slack:U0ALICE01', 'team', 'user slack:U0ALICE01']);
    // Usage only grows within a day: Alice is refused from memory now; Bob's check still reads.
    reads.length = 0;
    expect(await here.refusalFor(ALICE)).not.toBeNull();
    await elsewhere.forRun(run('r2'), BOB, 0).record(use(500));
    expect(await here.refusalFor(BOB)).toMatch(/Today's token budget for everyone here \(1,500 tokens\)/);
    expect(reads).toEqual(['user slack:U0BOB0001', 'team']);
  });
});

describe('/usage report', () => {
  const limits: LimitsSettings = { tokensPerUserPerDay: 10_000, tokensPerDay: 50_000, tokensPerRun: 4000 };
  beforeEach(async () => {
    const b = budget(limits);
    now = Date.UTC(2026, 0, 1, 12);
    await b.forRun(run('old'), ALICE, 0).record(use(2000));
    now = NINE_AM;
    await b.forRun(run('r1'), ALICE, 0).record({ promptTokens: 1000, completionTokens: 234 });
    await b.forRun(run('r2'), BOB, 0).record(use(300));
    now = Date.UTC(2025, 11, 1);
    await b.forRun(run('ancient'), BOB, 0).record(use(99_999));
    now = NINE_AM;
  });

  it("shows a person's own tokens today and over 30 days, the limits and what is left", async () => {
    const text = await buildUsageReport({
      store,
      cost,
      limits,
      platform: 'slack',
      userId: 'U0ALICE01',
      admin: false,
      now,
    });
    expect(text).toBe(
      [
        '**Your usage**: today 1,234 tokens (prompt 1,000 / completion 234), last 30 days 3,234.',
        '',
        '**Limits**',
        '• Per person per day: 10,000 — 8,766 left today',
        '• Everyone together per day: 50,000 — 48,466 left today',
        '• Per run: 4,000',
        'Daily budgets reset at 00:00 UTC, in 15 h.',
      ].join('\n'),
    );
    expect(text).not.toContain('U0BOB0001');
  });

  it('shows admins everyone per user and in total', async () => {
    const text = await buildUsageReport({
      store,
      cost,
      limits: {},
      platform: 'slack',
      userId: 'U0ALICE01',
      admin: true,
      now,
    });
    expect(text).toContain('**Everyone**: today 1,534 tokens (prompt 1,225 / completion 309), last 30 days 3,534.');
    expect(text).toContain(
      '**Top 2 users, last 30 days**\n1. <@U0ALICE01> — 3,234 (today 1,234)\n2. <@U0BOB0001> — 300 (today 300)',
    );
    expect(text).not.toContain('**Limits**');
  });
});

describe('settling a run that ran out of budget', () => {
  const base = { abortReason: null, attempts: 1, maxAttempts: 3, maxRunMinutes: 30, retryDelayMs: () => 1000 };
  it('fails run and task (no retry) and says why, when it resets, and whose budget it was', async () => {
    const s = settleRun({
      ...base,
      ending: {
        kind: 'over_budget',
        runTokens: 0,
        stop: {
          scope: 'user_day',
          unit: 'tokens',
          used: 1000,
          limit: 1000,
          userId: 'U0ALICE01',
          resetsInMs: 3_600_000,
        },
      },
    });
    expect(s.run).toEqual({ to: 'failed', error: 'token budget (user_day)' });
    expect(s.note).toBe(
      "🪙 I didn't start this: <@U0ALICE01>'s daily token budget (1,000) is used up. It resets at 00:00 UTC, in 1 h.",
    );
    expect(s.task).toEqual({ kind: 'fail', reason: s.note });
    expect(s.schedule).toBeNull();
    const perRun = settleRun({
      ...base,
      ending: { kind: 'over_budget', runTokens: 2000, stop: { scope: 'run', unit: 'tokens', used: 2000, limit: 1500 } },
    });
    expect(perRun.note).toBe(
      '🪙 I stopped: this run used 2,000 tokens, past its budget of 1,500 tokens per run. Ask me to continue if you want me to keep going.',
    );
  });
});
