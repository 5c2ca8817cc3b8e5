import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../fakes/wait-for.js';
import { gate, startHarness, type Harness } from './harness.js';
import { sqliteDb } from '../fakes/sqlite-db.js';
import { useStoreKinds } from '../support/store-kinds.js';
import { isPostgresStore } from '../../src/composition/pg-store.js';
import type { ErrandStore as Store } from '../../src/composition/errand-store.js';
import { toolResultJson } from '../support/tool-result-json.js';

const stores = useStoreKinds();

let h: Harness;
afterEach(async () => h.close());

/** Makes the database refuse transcript rows whose content contains `marker`, with a trigger of its own dialect. */
async function failTranscriptWrites(store: Store, marker: string): Promise<void> {
  if (isPostgresStore(store)) {
    await store.db.$client.query(`create function fail_write() returns trigger language plpgsql as $$ begin
      if new.content like '%${marker}%' then raise exception 'could not extend file: No space left on device'; end if; return new; end $$`);
    await store.db.$client.query(
      'create trigger fail_write before insert on messages for each row execute function fail_write()',
    );
    return;
  }
  sqliteDb(store).$client.exec(
    `create trigger fail_write before insert on messages when new.content like '%${marker}%' begin select raise(abort, 'disk I/O error'); end`,
  );
}

const askStep = { toolCalls: [{ name: 'ask_user', arguments: { question: 'Which format?' } }] };

describe.each(stores.kinds)('runs that fail unexpectedly (%s)', (kind) => {
  it('ends a run whose transcript write fails, re-queues its task, says so, and frees the conversation', async () => {
    h = await startHarness(await stores.env(kind));
    // A real write failure inside the run, as a full disk would give.
    await failTranscriptWrites(h.app.store, 'WRITE-FAILS');
    h.model.reply({ text: 'this answer WRITE-FAILS' }, { text: 'Second request answered.' });
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'first request');
    await waitFor(() => h.adapter.textsIn(thread).some((t) => /something went wrong on my side/.test(t)));
    await h.app.coordinator.idle();
    const conv = await h.app.conversations.ensure(thread);
    expect(await h.app.runs.active(conv)).toBeNull();
    expect((await h.app.tasks.list(conv))[0]).toMatchObject({ status: 'pending', attempts: 1 });

    await h.adapter.say(thread, 'second request');
    await waitFor(() => h.adapter.textsIn(thread).includes('Second request answered.'));
    expect(h.adapter.textsIn(thread).some((t) => t.startsWith('📝 Queued'))).toBe(false);
  });

  it('gives up, with one note, on a task that is interrupted by restarts again and again', async () => {
    h = await startHarness(await stores.env(kind));
    const never = gate();
    h.model.respondWith(() => ({ text: 'never sent', gate: never.promise }));
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'a task that kills the process');
    for (let i = 1; i <= 3; i++) {
      await waitFor(() => h.model.requests.length === i);
      await h.restart();
    }
    const conv = await h.app.conversations.ensure(thread);
    await waitFor(() => h.adapter.textsIn(thread).some((t) => t.startsWith('❌ I gave up on task #1')));
    expect(h.adapter.textsIn(thread)).toEqual([
      '❌ I gave up on task #1: I was restarted in the middle of it 3 times. Ask again if you still need it.',
    ]);
    expect((await h.app.tasks.list(conv))[0]).toMatchObject({ status: 'failed', attempts: 3 });
    expect(h.model.requests).toHaveLength(3);
  });
});

describe.each(stores.kinds)('resuming waiting runs (%s)', (kind) => {
  it('an answer that arrives while every run slot is busy resumes the run when a slot frees', async () => {
    h = await startHarness({ ...(await stores.env(kind)), MAX_CONCURRENT_RUNS: '1' });
    const a = h.adapter.thread('C1', 'TA');
    const b = h.adapter.thread('C1', 'TB');
    const slow = gate();
    h.model.reply(askStep, { text: 'B done.', gate: slow.promise }, { text: 'A done.' });
    await h.adapter.say(a, 'task A');
    await waitFor(() => h.adapter.textsIn(a).length === 1);
    await h.app.coordinator.idle();
    await h.adapter.say(b, 'task B');
    await waitFor(() => h.model.requests.length === 2);
    await h.adapter.say(a, 'PDF');
    expect(h.app.coordinator.inFlight).toBe(1);
    expect(await h.app.runs.active(await h.app.conversations.ensure(a))).toMatchObject({ status: 'waiting_user' });
    slow.open();
    await waitFor(() => h.adapter.textsIn(a).includes('A done.'));
    expect(h.adapter.textsIn(b)).toContain('B done.');
    const resumed = h.model.requests[2]!;
    expect(resumed.messages.filter((m) => m.role === 'tool').map((m) => toolResultJson(m.content))).toEqual([
      { ok: true, answer: 'PDF', answered_by: 'U1' },
    ]);
  });

  it('keeps an answer that arrives during shutdown and resumes with it after the restart', async () => {
    h = await startHarness(await stores.env(kind));
    h.model.reply(askStep, { text: 'Resumed with the answer.' });
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'write the report');
    await waitFor(() => h.adapter.textsIn(thread).length === 1);
    await h.app.coordinator.idle();
    await h.app.coordinator.shutdown();
    await h.adapter.say(thread, 'Markdown');
    await h.restart();
    await waitFor(() => h.adapter.textsIn(thread).includes('Resumed with the answer.'));
    expect(
      h.model.requests[1]!.messages.filter((m) => m.role === 'tool').map((m) => toolResultJson(m.content)),
    ).toEqual([{ ok: true, answer: 'Markdown', answered_by: 'U1' }]);
  });
});

describe.each(stores.kinds)('blank model replies (%s)', (kind) => {
  it('asks the model again after an empty answer and posts the second one', async () => {
    h = await startHarness(await stores.env(kind));
    h.model.reply({ text: '' }, { text: 'Here is the answer.' });
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'hello?');
    await waitFor(() => h.adapter.textsIn(thread).includes('Here is the answer.'));
    expect(h.model.requests).toHaveLength(2);
  });

  it('says so when the model answers blank twice, instead of completing in silence', async () => {
    h = await startHarness(await stores.env(kind));
    h.model.reply({ text: '  ' }, { text: '' });
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'hello?');
    await waitFor(() => h.adapter.textsIn(thread).length === 1);
    expect(h.adapter.textsIn(thread)).toEqual(["❌ I couldn't finish this: the model sent an empty answer twice."]);
    await h.app.coordinator.idle();
    expect((await h.app.tasks.list(await h.app.conversations.ensure(thread)))[0]).toMatchObject({ status: 'failed' });
  });
});
