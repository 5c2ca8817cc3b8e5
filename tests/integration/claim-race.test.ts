import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { conversationKey } from '../../src/chat/conversation-ref.js';
import { waitFor } from '../fakes/wait-for.js';
import { gate, lastUserMessage, startHarness, type Harness } from './harness.js';
import { useStoreKinds } from '../support/store-kinds.js';

const stores = useStoreKinds();

let h: Harness;
afterEach(async () => h.close());

describe.each(stores.kinds)('claiming work with an asynchronous store (%s)', (kind) => {
  it('starts one run when two callers claim the same conversation in the same tick', async () => {
    h = await startHarness(await stores.env(kind));
    const conversationId = await h.app.conversations.ensure(h.adapter.thread());
    const added = await h.app.tasks.add({
      conversationId,
      title: 'once',
      description: 'do it once',
      createdBy: 'user',
    });
    expect(added.ok).toBe(true);
    const results = await Promise.all([
      h.app.coordinator.startNext(conversationId),
      h.app.coordinator.startNext(conversationId),
    ]);
    expect(results.map((r) => r.kind).sort()).toEqual(['busy_conversation', 'started']);
    await h.app.coordinator.idle();
    expect(h.model.requests).toHaveLength(1);
    await waitFor(async () => (await h.app.tasks.list(conversationId))[0]?.status === 'completed');
  });

  it('keeps the concurrency limit when many conversations are claimed in the same tick', async () => {
    h = await startHarness({ ...(await stores.env(kind)), MAX_CONCURRENT_RUNS: '2' });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const id = await h.app.conversations.ensure({ ...h.adapter.thread(), thread: `race-${i}` });
      await h.app.tasks.add({ conversationId: id, title: `t${i}`, description: `t${i}`, createdBy: 'user' });
      ids.push(id);
    }
    const results = await Promise.all(ids.map((id) => h.app.coordinator.startNext(id)));
    expect(results.map((r) => r.kind)).toEqual(['started', 'started', 'busy_global', 'busy_global']);
    expect(results.filter((r) => r.kind === 'busy_global')).toHaveLength(2);
  });
});

describe('a request to an idle conversation, where one process owns the database (SQLite)', () => {
  it('is stored and claimed in one transaction, and its run answers it', async () => {
    h = await startHarness();
    const slow = gate();
    h.model.reply({ text: 'done it', gate: slow.promise });
    const exec = vi.spyOn(Database.prototype, 'exec');
    try {
      const thread = h.adapter.thread('C1', 'one-commit');
      await h.adapter.say(thread, 'do one thing');
      await waitFor(() => h.model.requests.length === 1);
      // The message's write claimed the task too: no second transaction before the model is asked.
      expect(exec.mock.calls.filter(([sql]) => sql === 'BEGIN IMMEDIATE')).toHaveLength(1);
      const conversationId = conversationKey(thread);
      expect((await h.app.runs.active(conversationId))?.status).toBe('running');
      expect(lastUserMessage(h.model.requests[0]!)).toContain('do one thing');
      slow.open();
      await waitFor(async () => (await h.app.tasks.list(conversationId))[0]?.status === 'completed');
      expect(h.adapter.textsIn(thread)).toContain('done it');
    } finally {
      exec.mockRestore();
    }
  });
});

describe.skipIf(!stores.kinds.includes('postgres'))('a request to an idle conversation on PostgreSQL', () => {
  it('is stored and claimed in one transaction, without a savepoint, and its run answers it', async () => {
    // Spied before the pool connects: every statement of every pooled connection passes the spy.
    const query = vi.spyOn(pg.Client.prototype, 'query');
    try {
      h = await startHarness(await stores.env('postgres'));
      const slow = gate();
      h.model.reply({ text: 'done it', gate: slow.promise });
      const thread = h.adapter.thread('C1', 'one-commit');
      const texts = () =>
        query.mock.calls.map(([config]) =>
          (typeof config === 'string' ? config : ((config as { text?: string }).text ?? '')).toLowerCase(),
        );
      const before = texts().length;
      await h.adapter.say(thread, 'do one thing');
      await waitFor(() => h.model.requests.length === 1);
      const sent = texts().slice(before);
      // The message's write claimed the task too: one statement, a transaction of its own (issue 40), and no
      // other transaction before the model is asked.
      expect(sent.filter((t) => t.startsWith('select errand_accept_mention('))).toHaveLength(1);
      expect(sent.filter((t) => t === 'begin')).toEqual([]);
      expect(sent.filter((t) => t.startsWith('savepoint'))).toEqual([]);
      const conversationId = conversationKey(thread);
      expect((await h.app.runs.active(conversationId))?.status).toBe('running');
      slow.open();
      await waitFor(async () => (await h.app.tasks.list(conversationId))[0]?.status === 'completed');
      expect(h.adapter.textsIn(thread)).toContain('done it');
    } finally {
      query.mockRestore();
    }
  });

  it("stores and claims a mention with one statement and no transaction around it, and a queued one's claim rides in the settlement's one statement, without a transaction (issue 40)", async () => {
    const query = vi.spyOn(pg.Client.prototype, 'query');
    try {
      h = await startHarness(await stores.env('postgres'));
      const slow = gate();
      h.model.reply({ text: 'first done', gate: slow.promise });
      h.model.reply({ text: 'second done' });
      const thread = h.adapter.thread('C1', 'one-call');
      const texts = () =>
        query.mock.calls.map(([config]) =>
          (typeof config === 'string' ? config : ((config as { text?: string }).text ?? '')).toLowerCase(),
        );
      let before = texts().length;
      const first = await h.adapter.say(thread, 'do one thing');
      await waitFor(() => h.model.requests.length === 1);
      let sent = texts().slice(before);
      expect(sent.filter((t) => t.startsWith('select errand_accept_mention('))).toHaveLength(1);
      expect(
        sent.filter((t) => t === 'begin'),
        'no transaction around it',
      ).toEqual([]);
      // A redelivery writes nothing: one call, no task.
      before = texts().length;
      await h.adapter.say(thread, 'do one thing', { messageId: first });
      expect(
        texts()
          .slice(before)
          .filter((t) => t.startsWith('select errand_accept_mention(')),
      ).toHaveLength(1);
      const conversationId = conversationKey(thread);
      expect(await h.app.tasks.list(conversationId)).toHaveLength(1);
      // A second request waits behind the running one; when that ends, its claim is in the run's settlement call
      // (errand_settle_run_next, issue 40's eleventh round): one call, no claim of its own.
      await h.adapter.say(thread, 'then another');
      await waitFor(async () => (await h.app.tasks.list(conversationId)).length === 2);
      before = texts().length;
      slow.open();
      await waitFor(() => h.model.requests.length === 2);
      sent = texts().slice(before);
      expect(sent.filter((t) => t.startsWith('select errand_claim_task('))).toEqual([]);
      const claim = sent.findIndex((t) => t.startsWith('select errand_settle_run_next('));
      expect(claim).toBeGreaterThanOrEqual(0);
      expect(sent[claim - 1], 'no transaction around the claim').not.toBe('begin');
      expect(sent[claim + 1], 'no transaction around the claim').not.toBe('commit');
      await waitFor(async () => (await h.app.tasks.list(conversationId)).every((t) => t.status === 'completed'));
      expect(h.adapter.textsIn(thread)).toEqual(expect.arrayContaining(['first done', 'second done']));
    } finally {
      query.mockRestore();
    }
  });
});
