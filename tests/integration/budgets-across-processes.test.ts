import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../fakes/wait-for.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { adminQuery, useTestDatabase } from '../support/test-database.js';
import { gate, startHarness, type Harness } from './harness.js';

/*
 * Two Errand apps on one PostgreSQL database (DATABASE_URL): two processes, each with its own pool, model
 * endpoint and chat adapter, charging the same usage_daily. Daily budgets are the team's, not each process's.
 * The tests share the file's database (migrated once) and start with no usage recorded.
 */

const database = useTestDatabase();
const ALICE = 'U0ALICE01';
const harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0).reverse()) await h.close();
  if (!database.skip) await adminQuery(database.url, 'truncate usage_daily');
});

async function twoProcesses(limits: Record<string, number>): Promise<[Harness, Harness]> {
  const env = { DATABASE_URL: database.url, ...errandFileEnv({ limits }), STREAMING: 'false' };
  for (let i = 0; i < 2; i++) harnesses.push(await startHarness(env));
  return [harnesses[0]!, harnesses[1]!];
}

/** One request answered in `h` for `userId`, charged `tokens` (prompt and completion halves). */
async function spend(h: Harness, channel: string, userId: string, tokens: number): Promise<void> {
  h.model.usageWith(() => ({ promptTokens: tokens / 2, completionTokens: tokens / 2 }));
  const thread = h.adapter.thread(channel, `T-${userId}-${h.model.requests.length}`);
  const text = `answer for ${userId}`;
  h.model.reply({ text });
  await h.adapter.say(thread, 'a question', { userId });
  await waitFor(() => h.adapter.textsIn(thread).includes(text), 10_000, `${userId}'s answer`);
  await h.app.coordinator.idle();
}

describe.skipIf(database.skip)('daily budgets across processes on PostgreSQL', () => {
  it('refuses a person in one process once their spending in both passes tokensPerUserPerDay', async () => {
    const [a, b] = await twoProcesses({ tokensPerUserPerDay: 1000 });
    await spend(b, 'C1', ALICE, 600);
    await spend(a, 'C1', ALICE, 600);
    const thread = b.adapter.thread('C1', 'T-late');
    await b.adapter.say(thread, 'one more question', { userId: ALICE });
    const refusal = (await waitFor(
      () => b.adapter.ephemerals.find((e) => e.userId === ALICE),
      10_000,
      'the private refusal',
    ))!;
    expect(refusal.text).toMatch(
      /^🪙 You've used your daily budget of 1,000 tokens \(1,200 today\), so I can't take this request\./,
    );
    expect(b.model.requests).toHaveLength(1);
  });

  it('refuses everyone in one process once the team spent tokensPerDay across both', async () => {
    const [a, b] = await twoProcesses({ tokensPerDay: 1000 });
    await spend(b, 'C2', 'U0BOB0001', 600);
    await spend(a, 'C2', 'U0CAROL01', 600);
    const thread = b.adapter.thread('C2', 'T-dave');
    await b.adapter.say(thread, 'a question', { userId: 'U0DAVE001' });
    const refusal = (await waitFor(
      () => b.adapter.ephemerals.find((e) => e.userId === 'U0DAVE001'),
      10_000,
      'the private refusal',
    ))!;
    expect(refusal.text).toMatch(
      /^🪙 Today's token budget for everyone here \(1,000 tokens\) is used up, so I can't take this request\./,
    );
    expect(b.model.requests).toHaveLength(1);
  });

  it("stops a run in one process before its next model call once the other process spent the rest of the person's budget", async () => {
    const [a, b] = await twoProcesses({ tokensPerUserPerDay: 1000 });
    b.model.usageWith(() => ({ promptTokens: 200, completionTokens: 200 }));
    const slow = gate();
    b.model.reply(
      { toolCalls: [{ name: 'send_update', arguments: { text: 'step one' } }], gate: slow.promise },
      { text: 'never asked for' },
    );
    const thread = b.adapter.thread('C3', 'T-long');
    await b.adapter.say(thread, 'a long job', { userId: ALICE });
    await waitFor(() => b.model.requests.length === 1, 10_000, "the run's first model call");
    await spend(a, 'C3', ALICE, 800);
    slow.open();
    const note = await waitFor(
      () => b.adapter.textsIn(thread).find((t) => t.startsWith('🪙')),
      10_000,
      'the budget note',
    );
    expect(note).toMatch(/^🪙 I stopped after 400 tokens: <@U0ALICE01>'s daily token budget \(1,000\) is used up\./);
    expect(b.adapter.textsIn(thread)).toEqual(['step one', note]);
    expect(b.model.requests).toHaveLength(1);
  });
});
