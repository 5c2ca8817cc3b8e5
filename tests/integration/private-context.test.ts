import { afterEach, describe, expect, it } from 'vitest';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import { FORGOTTEN_TEXT } from '../../src/memory/recall-redaction.js';
import type { FakeStep, FakeToolCall, RecordedRequest } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { isSummaryRequest, stepRequests } from '../support/summary-requests.js';
import { startHarness, type Harness } from './harness.js';
import { useStoreKinds } from '../support/store-kinds.js';
import { rememberPrivately } from '../support/private-memory.js';

const stores = useStoreKinds();
let h: Harness;
afterEach(async () => h.close());

const ANA = 'U0ANA';
const BOB = 'U0BOB';
/** Ana's `me` memory: only her runs may ever read it. */
const SECRET = 'Ana locker code is 4711-ZETA';

/** Every text a request carried (messages, tool calls, results), as one string. */
const sent = (r: RecordedRequest) => JSON.stringify(r.messages);
const systemText = (r: RecordedRequest) => String(r.messages[0]!.content);

/** A summariser that forgets nothing: the summary so far and every line it was given (so what it took in shows). */
function echoSummary(req: RecordedRequest): FakeStep {
  const content = String(req.messages[1]!.content);
  const match = /^Summary so far:\n([\s\S]*?)\n\nMessages to fold in, oldest first:\n([\s\S]*)$/.exec(content);
  if (!match) return { status: 400, error: 'not a summary request' };
  return { text: [...(match[1] === '(none yet)' ? [] : [match[1]!]), match[2]!].join('\n') };
}

/**
 * `userId` says `text` in `where`; the model makes `calls` (if any) in one step, then answers `answer`. Waits until the
 * run has ended and returns the requests of its steps.
 */
async function run(
  where: ConversationRef,
  userId: string,
  text: string,
  calls: FakeToolCall[],
  answer: string,
): Promise<RecordedRequest[]> {
  const before = stepRequests(h.model).length;
  const script: FakeStep[] = [...(calls.length > 0 ? [{ toolCalls: calls }] : []), { text: answer }];
  let next = 0;
  h.model.respondWith((req) => (isSummaryRequest(req) ? echoSummary(req) : (script[next++] ?? { text: 'Fine.' })));
  await h.adapter.say(where, text, { userId });
  const conv = await h.app.conversations.ensure(where);
  await waitFor(
    async () => stepRequests(h.model).length >= before + script.length && (await h.app.runs.active(conv)) === null,
    10_000,
    `the run for "${text}"`,
  );
  await h.app.coordinator.idle();
  return stepRequests(h.model).slice(before);
}

describe.each(stores.kinds)('private stays private in a shared thread (in process, %s)', (kind) => {
  it("keeps Ana's recall result out of Bob's runs and of the shared summary, holds her answer for her, and a forget takes the memory out of every later request", async () => {
    h = await startHarness({ ...(await stores.env(kind)), CONTEXT_TOKEN_BUDGET: '1400' });
    const memory = await rememberPrivately(h.app.store.memory, `memory:${ANA}`, SECRET);
    const thread = h.adapter.thread('C1', 'T1');
    const conv = await h.app.conversations.ensure(thread);

    // Ana's run reads her own memory: its answer is held for her, never posted in the thread.
    const anas = await run(
      thread,
      ANA,
      'what is my locker code?',
      [{ name: 'recall', arguments: { query: 'locker code' } }],
      'Found it in your memories: the code ends in ZETA.',
    );
    expect(sent(anas.at(-1)!)).toContain(SECRET);
    expect(h.adapter.textsIn(thread).join('\n')).not.toContain('ZETA');
    const held = h.adapter.privateChoices.find((c) => c.userId === ANA)!;
    expect(held.text).toContain('the code ends in ZETA');
    expect(held.buttons.map((b) => b.label)).toEqual(['Share in thread', 'Keep private']);
    expect(h.adapter.privateChoices.filter((c) => c.userId !== ANA)).toEqual([]);

    // Bob asks what it said: his request holds neither her memory nor her answer, only whose they were.
    const bobs = await run(thread, BOB, 'what did it say?', [], 'I cannot see that.');
    expect(sent(bobs[0]!)).not.toContain('4711');
    expect(sent(bobs[0]!)).not.toContain('ZETA');
    expect(sent(bobs[0]!)).toContain(`(a result private to <@${ANA}>)`);
    expect(sent(bobs[0]!)).toContain(`(an answer private to <@${ANA}>)`);
    expect(bobs[0]!.problem).toBeNull();
    expect(h.adapter.textsIn(thread)).toContain('I cannot see that.');

    // Bob's chatter pushes her steps out of the context: the shared summary takes in only the placeholders.
    for (let i = 0; i < 12 && !(await h.app.store.memory.summary(conv)); i++)
      await run(thread, BOB, `Message ${i}: chatter about lunch ${'.'.repeat(300)}`, [], `Noted ${i}.`);
    const shared = (await h.app.store.memory.summary(conv))!;
    expect(shared.summary).toContain(`(a result private to <@${ANA}>)`);
    expect(shared.summary).not.toContain('4711');
    for (const s of h.model.requests.filter(isSummaryRequest)) expect(sent(s)).not.toContain('4711');

    // Her next run brings what fell out for her into her own summary, which only her runs carry.
    const later = await run(thread, ANA, 'and remind me of it later', [], 'Sure.');
    expect((await h.app.store.memory.privateSummary(conv, ANA))?.summary).toContain(SECRET);
    expect(systemText(later[0]!)).toContain('Only for the person you work for now');
    const bobAgain = await run(thread, BOB, 'anything new?', [], 'Nothing.');
    expect(sent(bobAgain[0]!)).not.toContain('4711');
    expect(sent(bobAgain[0]!)).not.toContain('Only for the person you work for now');

    // She forgets it: the stored recall result and her summary lose it, and no later request of anyone carries it.
    await run(
      thread,
      ANA,
      'forget my locker code',
      [{ name: 'forget', arguments: { memory_id: memory.id } }],
      'Forgotten.',
    );
    const rows = await h.app.store.transcript.recent(conv, 500);
    expect(rows.some((r) => r.content?.includes('4711'))).toBe(false);
    expect(rows.some((r) => r.content?.includes(FORGOTTEN_TEXT))).toBe(true);
    const after = h.model.requests.length;
    await run(thread, ANA, 'what was my locker code again?', [], 'I do not know it any more.');
    await run(thread, BOB, 'and now?', [], 'Nothing.');
    for (const r of h.model.requests.slice(after)) expect(sent(r)).not.toContain('4711');
    expect((await h.app.store.memory.privateSummary(conv, ANA))?.summary ?? '').not.toContain('4711');
    expect(h.model.requests.every((r) => r.problem === null)).toBe(true);
  }, 60_000);

  it('when her own run compacts the thread, her private steps go into her own summary and the shared one gets only the placeholders', async () => {
    h = await startHarness({ ...(await stores.env(kind)), CONTEXT_TOKEN_BUDGET: '1400' });
    await rememberPrivately(h.app.store.memory, `memory:${ANA}`, SECRET);
    const thread = h.adapter.thread('C1', 'T1');
    const conv = await h.app.conversations.ensure(thread);
    await run(
      thread,
      ANA,
      'what is my locker code?',
      [{ name: 'recall', arguments: { query: 'locker code' } }],
      'Found it.',
    );
    for (let i = 0; i < 12 && !(await h.app.store.memory.summary(conv)); i++)
      await run(thread, ANA, `Message ${i}: chatter about lunch ${'.'.repeat(300)}`, [], `Noted ${i}.`);
    expect((await h.app.store.memory.summary(conv))!.summary).not.toContain('4711');
    expect((await h.app.store.memory.summary(conv))!.summary).toContain(`(a result private to <@${ANA}>)`);
    expect((await h.app.store.memory.privateSummary(conv, ANA))!.summary).toContain(SECRET);
    const bobs = await run(thread, BOB, 'what did she ask?', [], 'About a code.');
    expect(sent(bobs[0]!)).not.toContain('4711');
  }, 60_000);

  it('Share in thread posts the held answer and makes it public for later runs; Keep private leaves a note without it; only its owner decides, once', async () => {
    h = await startHarness(await stores.env(kind));
    await rememberPrivately(h.app.store.memory, `memory:${ANA}`, SECRET);
    const thread = h.adapter.thread('C1', 'T1');
    await run(
      thread,
      ANA,
      'what is my locker code?',
      [{ name: 'recall', arguments: { query: 'locker' } }],
      'Your code is 4711-ZETA.',
    );
    const [share, keep] = h.adapter.privateChoices.at(-1)!.buttons;

    expect(await h.adapter.choosePrivately(share!.actionId, BOB)).toEqual({
      text: `Only <@${ANA}> can share this answer: it uses what only they can see.`,
    });
    expect(h.adapter.textsIn(thread).join('\n')).not.toContain('4711');
    expect(await h.adapter.choosePrivately(share!.actionId, ANA)).toEqual({ text: 'Shared in the thread.' });
    await waitFor(
      () => h.adapter.textsIn(thread).includes('Your code is 4711-ZETA.'),
      10_000,
      'the shared answer in the thread',
    );
    expect(await h.adapter.choosePrivately(keep!.actionId, ANA)).toEqual({
      text: 'You already shared this answer in the thread.',
    });

    // Bob's run now reads the answer, as the thread does, but still not the memory it came from.
    const bobs = await run(thread, BOB, 'what did it say?', [], 'It said the code.');
    expect(sent(bobs[0]!)).toContain('Your code is 4711-ZETA.');
    expect(sent(bobs[0]!)).not.toContain(SECRET);

    // A second private answer, kept private: the thread hears only that.
    await run(
      thread,
      ANA,
      'and again?',
      [{ name: 'recall', arguments: { query: 'locker' } }],
      'Still 4711-ZETA, privately.',
    );
    const kept = h.adapter.privateChoices.at(-1)!.buttons[1]!;
    expect(await h.adapter.choosePrivately(kept.actionId, ANA)).toEqual({
      text: 'Kept private: the thread was only told that you kept an answer private.',
    });
    await waitFor(
      () => h.adapter.textsIn(thread).some((t) => t.includes(`<@${ANA}> kept an answer private`)),
      10_000,
      'the note',
    );
    expect(h.adapter.textsIn(thread).join('\n')).not.toContain('privately.');
  });

  it('holds an update sent after a private result too, tells the model so, and records no private text as the task result', async () => {
    h = await startHarness(await stores.env(kind));
    await rememberPrivately(h.app.store.memory, `memory:${ANA}`, SECRET);
    const thread = h.adapter.thread('C1', 'T1');
    const requests = await run(
      thread,
      ANA,
      'look up my code and tell me as you go',
      [
        { name: 'recall', arguments: { query: 'locker' } },
        { name: 'send_update', arguments: { text: 'Update: it is 4711-ZETA.' } },
      ],
      'Done: 4711-ZETA.',
    );
    expect(h.adapter.textsIn(thread).join('\n')).not.toContain('4711');
    expect(h.adapter.privateChoices.map((c) => c.text).join('\n')).toContain('Update: it is 4711-ZETA.');
    expect(h.adapter.privateChoices.filter((c) => c.text.includes('This update'))).toHaveLength(1);
    expect(sent(requests.at(-1)!)).toContain('\\"posted\\":false');
    const conv = await h.app.conversations.ensure(thread);
    const tasks = await h.app.store.tasks.list(conv);
    expect(tasks.at(-1)?.resultSummary ?? '').not.toContain('4711');
  });

  it('posts a private answer at once in a 1:1 DM, where nobody else reads it', async () => {
    h = await startHarness(await stores.env(kind));
    await rememberPrivately(h.app.store.memory, `memory:${ANA}`, SECRET);
    const dm = h.adapter.thread('D1', null);
    await run(
      dm,
      ANA,
      'what is my locker code?',
      [{ name: 'recall', arguments: { query: 'locker' } }],
      'Your code is 4711-ZETA.',
    );
    expect(h.adapter.textsIn(dm)).toContain('Your code is 4711-ZETA.');
    expect(h.adapter.privateChoices).toEqual([]);
  });
});
