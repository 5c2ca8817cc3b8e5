import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../fakes/wait-for.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { gate, startHarness, type Harness } from './harness.js';
import { sqliteDb } from '../fakes/sqlite-db.js';

let h: Harness;
afterEach(async () => h.close());

const usageOf = (h: Harness, user: string) =>
  sqliteDb(h.app.store)
    .$client.prepare('select sum(prompt_tokens + completion_tokens) as tokens from usage_daily where user = ?')
    .get(user) as { tokens: number | null };

describe('token budgets in the runtime', () => {
  it('charges a scheduled run to the schedule creator, and does not start one once their daily budget is used', async () => {
    h = await startHarness(errandFileEnv({ limits: { tokensPerUserPerDay: 1000 } }));
    h.model.usageWith(() => ({ promptTokens: 700, completionTokens: 300 }));
    const thread = h.adapter.thread('C6', 'T6');
    const conversationId = await h.app.conversations.ensure(thread);
    const created = await h.app.schedules.create({
      channel: { platform: 'memory', workspace: 'W1', channel: 'C6' },
      target: 'thread',
      conversationId,
      prompt: 'check the build',
      kind: 'interval',
      spec: '5',
      timezone: 'UTC',
      createdBy: 'U0CREATOR',
    });
    expect(created.ok).toBe(true);
    h.model.reply({ text: 'build is green' });
    h.clock.advance(5 * 60_000);
    await waitFor(() => h.adapter.textsIn(thread).includes('build is green'));
    await h.app.coordinator.idle();
    expect(usageOf(h, 'memory:U0CREATOR').tokens).toBe(1000);

    h.clock.advance(5 * 60_000);
    const note = await waitFor(() => h.adapter.textsIn(thread).find((t) => t.startsWith('🪙')));
    expect(note).toMatch(
      /^🪙 I didn't start this: <@U0CREATOR>'s daily token budget \(1,000\) is used up\. It resets at 00:00 UTC, in \d+ h/,
    );
    expect(h.model.requests).toHaveLength(1);
    await h.app.coordinator.idle();
    expect((await h.app.tasks.list(conversationId)).at(-1)).toMatchObject({ status: 'failed', createdBy: 'schedule' });
  });

  it('a request queued behind a run is not started once its requester has used their daily budget meanwhile', async () => {
    h = await startHarness(errandFileEnv({ limits: { tokensPerUserPerDay: 1000 } }));
    h.model.usageWith(() => ({ promptTokens: 600, completionTokens: 400 }));
    const thread = h.adapter.thread('C7', 'T7');
    const slow = gate();
    h.model.reply({ text: 'first answer', gate: slow.promise });
    await h.adapter.say(thread, 'first question', { userId: 'U0ALICE01' });
    await waitFor(() => h.model.requests.length === 1);
    await h.adapter.say(thread, 'second question', { userId: 'U0ALICE01' });
    await waitFor(() => h.adapter.textsIn(thread).some((t) => t.startsWith('📝 Queued')));
    slow.open();
    const note = await waitFor(() => h.adapter.textsIn(thread).find((t) => t.startsWith('🪙')));
    expect(note).toMatch(/^🪙 I didn't start this: <@U0ALICE01>'s daily token budget \(1,000\) is used up/);
    expect(h.model.requests).toHaveLength(1);
    expect(h.adapter.textsIn(thread)).toContain('first answer');
  });

  it("records each run's tokens on the run, and a run past tokensPerRun runs its last step's tools, then stops with a note", async () => {
    h = await startHarness(errandFileEnv({ limits: { tokensPerRun: 1500 } }));
    h.model.usageWith(() => ({ promptTokens: 800, completionTokens: 200 }));
    h.model.reply(
      { toolCalls: [{ name: 'send_update', arguments: { text: 'step one' } }] },
      { toolCalls: [{ name: 'send_update', arguments: { text: 'step two' } }] },
      { text: 'never asked for' },
    );
    const thread = h.adapter.thread('C8', 'T8');
    await h.adapter.say(thread, 'a long job', { userId: 'U0ALICE01' });
    const note = await waitFor(() => h.adapter.textsIn(thread).find((t) => t.startsWith('🪙')));
    expect(note).toBe(
      '🪙 I stopped: this run used 2,000 tokens, past its budget of 1,500 tokens per run. Ask me to continue if you want me to keep going.',
    );
    expect(h.adapter.textsIn(thread)).toEqual(['step one', 'step two', note]);
    expect(h.model.requests).toHaveLength(2);
    await h.app.coordinator.idle();
    const run = sqliteDb(h.app.store).$client.prepare('select status, tokens, error from runs').get();
    expect(run).toEqual({ status: 'failed', tokens: 2000, error: 'token budget (run)' });
  });
});
