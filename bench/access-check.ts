import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createAccessPolicy } from '../src/access/access-policy.js';
import { createBudget } from '../src/budget/budget.js';
import { utcDay } from '../src/budget/utc-day.js';
import { closeDatabase, openDatabase } from '../src/db/client.js';
import { createSqliteStore } from '../src/composition/sqlite-store.js';
import { accessSchema } from '../src/settings/team-settings.js';
import type { Benchmark } from './benchmark.js';

const USERS = 10_000;
const CHANNELS = 1_000;
const MESSAGES_PER_USER = 10;
const NOW = Date.UTC(2026, 0, 5, 9, 0, 0);

const slackUser = (i: number) => `U${String(i).padStart(9, '0')}`;
const slackChannel = (i: number) => `C${String(i).padStart(9, '0')}`;

/**
 * The checks every inbound message passes before anything is stored: the access policy (10 000
 * listed people, 1 000 channels, admins) and the daily token budgets over a database holding today's
 * usage of those 10 000 people. Each person sends 10 messages: the first of the day reads their
 * total from the database (one primary-key lookup), the rest are answered from memory.
 */
export const benchmark: Benchmark = {
  name: 'access-check',
  figures: ['access_check_us'],
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'errand-bench-access-'));
    const db = openDatabase(join(dir, 'errand.db'));
    try {
      const ins = db.$client.prepare(
        'insert into usage_daily (day, user, prompt_tokens, completion_tokens) values (?, ?, ?, ?)',
      );
      const today = utcDay(NOW);
      db.$client.transaction(() => {
        for (let i = 0; i < USERS; i++) ins.run(today, `slack:${slackUser(i)}`, 100 + (i % 700), 50 + (i % 300));
      })();
      const access = createAccessPolicy(
        accessSchema.parse({
          users: Array.from({ length: USERS }, (_, i) => `slack:${slackUser(i)}`),
          channels: Array.from({ length: CHANNELS }, (_, i) => `slack:${slackChannel(i)}`),
          admins: Array.from({ length: 20 }, (_, i) => `slack:${slackUser(USERS + i)}`),
          directMessages: 'allowlist',
        }),
      );
      const sqlite = createSqliteStore(db, { now: () => NOW, setTimer: () => null, clearTimer: () => undefined });
      const budget = createBudget({
        store: sqlite.usage,
        cost: sqlite.cost,
        limits: { tokensPerUserPerDay: 50_000, tokensPerDay: 100_000_000, tokensPerRun: 20_000 },
        now: () => NOW,
      });
      const people = Array.from({ length: USERS }, (_, i) => ({ platform: 'slack', userId: slackUser(i) }));
      const places = Array.from({ length: CHANNELS }, (_, i) => ({
        platform: 'slack',
        channel: slackChannel(i),
        direct: false,
      }));

      let refused = 0;
      const pass = async (): Promise<number> => {
        const t0 = performance.now();
        for (let i = 0; i < USERS; i++) {
          const person = people[i]!;
          const decision = access.check(person, places[i % CHANNELS]!);
          if (!decision.allowed || (await budget.refusalFor(person)) !== null) refused++;
        }
        return ((performance.now() - t0) * 1000) / USERS;
      };
      const first = await pass();
      const later: number[] = [];
      for (let k = 1; k < MESSAGES_PER_USER; k++) later.push(await pass());
      const warm = later.reduce((a, b) => a + b, 0) / later.length;
      const mean = (first + warm * (MESSAGES_PER_USER - 1)) / MESSAGES_PER_USER;
      if (refused !== 0) throw new Error(`the benchmark's people were refused ${refused} times; the setup is wrong`);
      return [
        {
          name: 'access_check_us',
          value: mean,
          unit: 'µs per inbound message',
          detail: `access policy + daily budgets, ${USERS} people listed, ${MESSAGES_PER_USER} messages each: first message of the day ${first.toFixed(2)} µs (one indexed lookup), later ones ${warm.toFixed(3)} µs (memory); target < 50 µs`,
        },
      ];
    } finally {
      closeDatabase(db);
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
