import { afterEach, describe, expect, it } from 'vitest';
import { wasCut } from '../../src/agent/context-cut.js';
import type { RecordedRequest } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { startHarness, type Harness } from './harness.js';
import { unframedToolResult } from '../support/tool-result-json.js';
import { isSummaryRequest, stepRequests } from '../support/summary-requests.js';

let h: Harness;
afterEach(async () => h.close());

const BUDGET = 3_000;
const STEPS = 30;
/** A tokenizer twice as dense as the builder's 4-characters-a-token estimate. */
const denseTokens = (value: unknown) => Math.ceil(JSON.stringify(value).length / 2);

describe('context that holds', () => {
  it('completes a 30-step run whose tool results are 8 000 characters each, every request valid and carrying the goal', async () => {
    h = await startHarness({ CONTEXT_TOKEN_BUDGET: String(BUDGET), MAX_STEPS: String(STEPS + 5) });
    const thread = h.adapter.thread();
    const conv = await h.app.conversations.ensure(thread);
    // Twenty finished to-dos with long results: every list_tasks answer is over 8 000 characters.
    for (let i = 0; i < 20; i++) {
      const added = await h.app.tasks.add({
        conversationId: conv,
        title: `Earlier job ${i}`,
        description: `Earlier job ${i}`,
        createdBy: 'agent',
      });
      if (!added.ok) throw new Error(added.error);
      await h.app.tasks.complete(conv, added.task.id, `Result ${i}: ${'details '.repeat(50)}`);
    }
    h.model.usageWith((req) => ({
      promptTokens: denseTokens({ messages: req.messages, tools: req.tools }),
      completionTokens: 5,
    }));
    h.model.respondWith((req) =>
      isSummaryRequest(req)
        ? { text: 'The to-do list was checked several times; twenty earlier jobs are completed.' }
        : stepRequests(h.model).length <= STEPS
          ? { toolCalls: [{ name: 'list_tasks', arguments: {} }] }
          : { toolCalls: [{ name: 'task_complete', arguments: { summary: `Listed the tasks ${STEPS} times.` } }] },
    );

    const goal = 'Check the to-do list thirty times, then report.';
    await h.adapter.say(thread, goal);
    await waitFor(
      async () => ['completed', 'failed', 'cancelled'].includes((await h.app.tasks.list(conv)).at(-1)?.status ?? ''),
      50_000,
      'the run to end',
    );
    await h.app.coordinator.idle();
    expect((await h.app.tasks.list(conv)).at(-1)).toMatchObject({
      status: 'completed',
      resultSummary: `Listed the tasks ${STEPS} times.`,
    });

    const requests: RecordedRequest[] = stepRequests(h.model);
    expect(requests).toHaveLength(STEPS + 1);
    expect(requests.map((r) => r.problem)).toEqual(requests.map(() => null));
    for (const r of requests) {
      expect(r.messages[0]!.role).toBe('system');
      expect(r.messages[1]).toMatchObject({ role: 'user' });
      expect(String(r.messages[1]!.content).startsWith(goal)).toBe(true);
    }
    const stored = (await h.app.transcript.recent(conv, 1_000)).filter((m) => m.role === 'tool');
    expect(stored).toHaveLength(STEPS + 1);
    for (const m of stored.slice(0, STEPS)) expect(m.content!.length).toBeGreaterThan(8_000);

    // The newest step is always sent; its 8 000-character result arrives cut with a note.
    const last = requests.at(-1)!;
    const newest = last.messages.at(-1)!;
    expect(newest.role).toBe('tool');
    expect(wasCut(unframedToolResult(newest.content))).toBe(true);
    expect(last.messages.length).toBeLessThan(2 * STEPS);
    expect(String(last.messages[1]!.content)).toMatch(
      /older messages were left out|Older messages of this conversation are not shown/,
    );

    // Calibrated from the reported usage: after the first request the messages fit the budget in the model's own tokens.
    for (const r of requests.slice(1)) expect(denseTokens({ messages: r.messages })).toBeLessThanOrEqual(BUDGET);
    expect(h.adapter.textsIn(thread)).toEqual([]);
  }, 60_000);
});
