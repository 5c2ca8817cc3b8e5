import { afterEach, describe, expect, it } from 'vitest';
import type { FakeStep, RecordedRequest } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { isSummaryRequest, stepRequests } from '../support/summary-requests.js';
import { startHarness, type Harness } from './harness.js';
import { useStoreKinds } from '../support/store-kinds.js';
import { payerKey } from '../../src/budget/budget.js';

const stores = useStoreKinds();
let h: Harness;
afterEach(async () => h.close());

const FACT = 'Please remember: our staging URL is https://staging.acme.test';

/**
 * A model that summarises as a careful one would: the summary so far, plus every line of the new messages
 * where someone asked to remember something (the chatter is left out).
 */
function summarise(req: RecordedRequest): FakeStep {
  const content = String(req.messages[1]!.content);
  const match = /^Summary so far:\n([\s\S]*?)\n\nMessages to fold in, oldest first:\n([\s\S]*)$/.exec(content);
  if (!match) return { status: 400, error: 'not a summary request' };
  const previous = match[1] === '(none yet)' ? [] : [match[1]!];
  const facts = match[2]!.split('\n').filter((l) => l.startsWith('Person:') && l.includes('remember'));
  return { text: [...previous, ...facts].join('\n') || 'Small talk only.' };
}

const systemText = (r: RecordedRequest) => String(r.messages[0]!.content);

/** Says one message and waits until its run has ended. */
async function sayAndWait(text: string, thread = h.adapter.thread()): Promise<void> {
  const before = stepRequests(h.model).length;
  await h.adapter.say(thread, text);
  const conv = await h.app.conversations.ensure(thread);
  await waitFor(
    async () => stepRequests(h.model).length > before && (await h.app.runs.active(conv)) === null,
    10_000,
    `the run for "${text.slice(0, 30)}"`,
  );
  await h.app.coordinator.idle();
}

// The long thread on SQLite (its 300 runs take 20 s on PostgreSQL); compaction on both databases below.
describe('compaction: long threads are summarised, not forgotten', () => {
  it('carries a fact from message 1 of a 300-message thread into the request at message 300, through the stored summary', async () => {
    h = await startHarness({ CONTEXT_TOKEN_BUDGET: '1200' });
    h.model.respondWith((req) =>
      isSummaryRequest(req) ? summarise(req) : { text: `Noted (${stepRequests(h.model).length}).` },
    );
    await sayAndWait(FACT);
    for (let i = 2; i < 300; i++)
      await sayAndWait(
        `Message ${i}: nothing important here, just chatter about lunch and the weather ${'.'.repeat(60)}`,
      );
    await sayAndWait('What is our staging URL?');

    const last = stepRequests(h.model).at(-1)!;
    const goal = last.messages.at(-1)!;
    expect(goal).toMatchObject({ role: 'user' });
    expect(String(goal.content)).toMatch(/^What is our staging URL\?/);
    // The note after the goal names the summary.
    expect(String(goal.content)).toContain('"Summary of the earlier part of this conversation" above');
    expect(systemText(last)).toContain('Summary of the earlier part of this conversation');
    expect(systemText(last)).toContain('https://staging.acme.test');
    // The first message itself left the context long ago: only the summary carries it.
    expect(last.messages.slice(1).some((m) => String(m.content).includes('staging.acme.test'))).toBe(false);
    const summaries = h.model.requests.filter(isSummaryRequest);
    expect(summaries.length).toBeGreaterThan(5);
    // Each summary folds in enough for several more requests: far fewer summaries than runs.
    expect(summaries.length).toBeLessThan(150);
    // Extended, not rewritten: every summary request after the first starts from the summary so far.
    for (const s of summaries.slice(1)) expect(String(s.messages[1]!.content)).toContain('https://staging.acme.test');
    expect(h.model.requests.every((r) => r.problem === null)).toBe(true);
  }, 120_000);
});

describe.each(stores.kinds)('compaction: a summary kept and a failed one (%s)', (kind) => {
  it('keeps the summary across a restart, and charges summary requests to the run like any other', async () => {
    h = await startHarness({
      ...(await stores.env(kind)),
      CONTEXT_TOKEN_BUDGET: '800',
      COMPACTION_MODEL: 'small-summariser',
    });
    h.model.usageWith(() => ({ promptTokens: 10, completionTokens: 1 }));
    h.model.respondWith((req) => (isSummaryRequest(req) ? summarise(req) : { text: 'Noted.' }));
    await sayAndWait(FACT);
    for (let i = 2; i < 30; i++) await sayAndWait(`Message ${i}: chatter ${'.'.repeat(120)}`);
    const conv = await h.app.conversations.ensure(h.adapter.thread());
    const stored = await h.app.store.memory.summary(conv);
    expect(stored?.summary).toContain('https://staging.acme.test');
    expect(h.model.requests.filter(isSummaryRequest).length).toBeGreaterThan(0);
    // Summaries are written by COMPACTION_MODEL; the runs' own steps keep OPENAI_MODEL.
    expect(new Set(h.model.requests.filter(isSummaryRequest).map((r) => r.model))).toEqual(
      new Set(['small-summariser']),
    );
    expect(new Set(stepRequests(h.model).map((r) => r.model))).toEqual(new Set(['gpt-4o-mini']));
    // Charged to the person the runs act for, summary requests included.
    const charged = await h.app.store.usage.userSince(payerKey('memory', 'U1'), '2000-01-01');
    expect(charged.promptTokens + charged.completionTokens).toBe(h.model.requests.length * 11);

    await h.restart();
    // After the restart no summary can be written: what the request knows of message 1 comes from the stored one.
    h.model.respondWith((req) =>
      isSummaryRequest(req) ? { status: 400, error: 'summaries are off' } : { text: 'Noted.' },
    );
    await sayAndWait('What is our staging URL?');
    const last = stepRequests(h.model).at(-1)!;
    expect(systemText(last)).toContain('https://staging.acme.test');
  }, 60_000);

  it('answers when the summary request fails, leaving older messages out with the note, and asks once per run', async () => {
    h = await startHarness({ ...(await stores.env(kind)), CONTEXT_TOKEN_BUDGET: '600' });
    h.model.respondWith((req) =>
      isSummaryRequest(req)
        ? { status: 400, error: 'this model cannot summarise' }
        : stepRequests(h.model).length % 2 === 0
          ? { toolCalls: [{ name: 'list_tasks', arguments: {} }] }
          : { text: 'Done.' },
    );
    for (let i = 0; i < 8; i++) await sayAndWait(`Question ${i} ${'y'.repeat(400)}`);
    const thread = h.adapter.thread();
    const texts = h.adapter.textsIn(thread);
    expect(texts.filter((t) => t === 'Done.').length).toBe(8);
    const conv = await h.app.conversations.ensure(thread);
    expect(await h.app.store.memory.summary(conv)).toBeNull();
    const last = stepRequests(h.model).at(-1)!;
    expect(String(last.messages[1]!.content)).toMatch(
      /older messages? (was|were) left out of this conversation to fit the context\.\)$/,
    );
    // A run whose summary failed does not ask again at its next step: at most one failed summary request per run.
    expect(h.model.requests.filter(isSummaryRequest).length).toBeLessThanOrEqual(8);
    expect(h.model.requests.filter(isSummaryRequest).length).toBeGreaterThan(0);
  }, 60_000);
});
