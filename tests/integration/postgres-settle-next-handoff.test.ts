import { afterEach, describe, expect, it } from 'vitest';
import { conversationKey } from '../../src/chat/conversation-ref.js';
import type { PostgresStore } from '../../src/composition/pg-store.js';
import type { SettledNext } from '../../src/run-records/run-end.js';
import type { RunStore } from '../../src/run-records/run-store.js';
import { waitFor } from '../fakes/wait-for.js';
import { statementLog } from '../support/statement-log.js';
import { useStoreKinds } from '../support/store-kinds.js';
import { gate, lastUserMessage, startHarness, type Harness } from './harness.js';

/*
 * Issue 40, eleventh round: on PostgreSQL a run's end claims the next work in its settlement's call, and the run's
 * slot passes to the claimed run in the same tick as the ended run leaves it (next-claims.ts). What the pump did
 * after every run's end still happens: its order and `prefer`, the slot limit, a start turned away meanwhile, a stop
 * or a shutdown that comes while the call is under way.
 */

const stores = useStoreKinds();
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const start = async (maxRuns: number) => {
  h = await startHarness({ ...(await stores.env('postgres')), MAX_CONCURRENT_RUNS: String(maxRuns) });
  return h;
};

/** Makes the app's settlement calls wait, once, after the call answered (committed), until released. */
function holdSettleNext(runs: RunStore) {
  const real = runs.settleNext!.bind(runs);
  const entered = gate();
  const release = gate();
  let held = false;
  let answered: SettledNext | undefined;
  runs.settleNext = async (...args): Promise<SettledNext> => {
    const answer = await real(...args);
    if (!held) {
      held = true;
      answered = answer;
      entered.open();
      await release.promise;
    }
    return answer;
  };
  return { entered: entered.promise, release: release.open, answered: () => answered };
}

/** How many model requests had `text` as their run's goal. */
const asked = (x: Harness, text: string) => x.model.requests.filter((r) => lastUserMessage(r) === text).length;

/**
 * T1's run ('first') under way in channel C1, its answer ('one') held until `answerFirst`; T2 and T3 are the channel's
 * other threads, for the work that comes meanwhile.
 */
async function underWay(x: Harness) {
  const first = gate();
  x.model.reply({ text: 'one', gate: first.promise });
  const [t1, t2, t3] = [x.adapter.thread('C1', 'T1'), x.adapter.thread('C1', 'T2'), x.adapter.thread('C1', 'T3')];
  await x.adapter.say(t1, 'first');
  await waitFor(() => x.model.requests.length === 1);
  return { x, t1, t2, t3, answerFirst: first.open };
}

/** One slot, and its first run under way. */
const firstRunUnderWay = async () => underWay(await start(1));

/** As firstRunUnderWay, with the app's settlement calls held (holdSettleNext: installed before the run starts). */
async function firstRunHeld() {
  const x = await start(1);
  const held = holdSettleNext(x.app.store.runs);
  return { ...(await underWay(x)), held };
}

describe.skipIf(!stores.kinds.includes('postgres'))("a run's end claims the next work (postgres)", () => {
  it('sends the settlement with the claim as one statement: no due-work read and no claim of its own', async () => {
    const { x, t2, answerFirst } = await firstRunUnderWay();
    const log = statementLog();
    log.watch((x.app.store as PostgresStore).db.$client);
    x.model.respondWith(() => ({ text: 'two' }));
    await x.adapter.say(t2, 'second');
    log.sent.length = 0;
    // T1's end claims T2's task (ready in another conversation); T2's end finds nothing ready.
    answerFirst();
    await waitFor(() => x.adapter.textsIn(t2).includes('two'));
    await x.app.coordinator.idle();
    const sent = [...log.sent];
    expect(sent.filter((s) => s.startsWith('select errand_settle_run_next('))).toHaveLength(2);
    expect(sent.filter((s) => s.startsWith('select errand_settle_run('))).toEqual([]);
    expect(sent.filter((s) => s.startsWith('select errand_claim_task('))).toEqual([]);
    expect(sent.filter((s) => s.includes("from runs where status = 'waiting_user'"))).toEqual([]);
    expect(asked(x, 'second')).toBe(1);
    expect(x.app.coordinator.inFlight).toBe(0);
  });

  it("starts the ended run's conversation first, then the others oldest first", async () => {
    const { x, t1, t2, t3, answerFirst } = await firstRunUnderWay();
    x.model.respondWith(() => ({ text: 'ok' }));
    await x.adapter.say(t2, 'older elsewhere');
    await x.adapter.say(t3, 'newer elsewhere');
    await x.adapter.say(t1, 'next here');
    answerFirst();
    await waitFor(() => x.model.requests.length === 4);
    await x.app.coordinator.idle();
    expect(x.model.requests.map(lastUserMessage)).toEqual(['first', 'next here', 'older elsewhere', 'newer elsewhere']);
  });

  it('passes the slot without a gap: never more runs than MAX_CONCURRENT_RUNS, and a start turned away meanwhile still starts', async () => {
    const x = await start(2);
    const held = holdSettleNext(x.app.store.runs);
    const seen: number[] = [];
    const [g1, g2] = [gate(), gate()];
    x.model.reply({ text: 'one', gate: g1.promise }, { text: 'two', gate: g2.promise });
    x.model.respondWith(() => {
      seen.push(x.app.coordinator.inFlight);
      return { text: 'done' };
    });
    const [t1, t2, t3, t4] = ['T1', 'T2', 'T3', 'T4'].map((t) => x.adapter.thread('C1', t));
    await x.adapter.say(t1!, 'one');
    await x.adapter.say(t2!, 'two');
    await waitFor(() => x.model.requests.length === 2);
    await x.adapter.say(t3!, 'three');
    // T1's end claims T3 in its call, held after it committed: T1 still holds its slot.
    g1.open();
    await held.entered;
    expect(held.answered()?.claimed?.task.title).toBe('three');
    expect(x.app.coordinator.inFlight).toBe(2);
    // A mention meanwhile finds no slot here (it is accepted, and turned away).
    await x.adapter.say(t4!, 'four');
    const fourth = await x.app.conversations.ensure(t4!);
    expect(await x.app.coordinator.startNext(fourth)).toEqual({ kind: 'busy_global' });
    expect(x.model.requests).toHaveLength(2);
    held.release();
    await waitFor(() => asked(x, 'three') === 1);
    g2.open();
    await waitFor(() => asked(x, 'four') === 1);
    await x.app.coordinator.idle();
    expect(Math.max(...seen)).toBeLessThanOrEqual(2);
    expect(x.model.requests.map(lastUserMessage).sort()).toEqual(['four', 'one', 'three', 'two']);
    expect(x.app.coordinator.inFlight).toBe(0);
  });

  it('runs the pump after all when a start was turned away while a call that found nothing was under way', async () => {
    const { x, t2, answerFirst, held } = await firstRunHeld();
    x.model.respondWith(() => ({ text: 'late' }));
    answerFirst();
    await held.entered;
    // Its read found nothing: the mention below is written after it, and turned away for want of T1's slot.
    expect(held.answered()).toMatchObject({ answer: 'settled', claimed: null, more: false });
    await x.adapter.say(t2, 'after the read');
    expect(x.model.requests).toHaveLength(1);
    held.release();
    await waitFor(() => x.adapter.textsIn(t2).includes('late'));
    expect(asked(x, 'after the read')).toBe(1);
  });

  it('a /stop of the claimed conversation while the call is under way: the claimed run is not launched', async () => {
    const { x, t2, answerFirst, held } = await firstRunHeld();
    x.model.respondWith(() => ({ text: 'should not run' }));
    await x.adapter.say(t2, 'second');
    const second = await x.app.conversations.ensure(t2);
    answerFirst();
    await held.entered;
    const run = held.answered()!.claimed!.run;
    expect(await x.app.runs.active(second)).toMatchObject({ id: run.id });
    expect(await x.app.coordinator.stopConversation(second, false)).toMatchObject({ stoppedRun: true });
    held.release();
    await x.app.coordinator.idle();
    expect(x.app.coordinator.isExecuting(second)).toBe(false);
    expect(x.model.requests).toHaveLength(1);
    expect(await x.app.runs.get(run.id)).toMatchObject({ status: 'cancelled' });
    expect(x.app.coordinator.inFlight).toBe(0);
  });

  it('a shutdown while the call is under way: the claimed run is not started here, its lease is released, and it runs once after', async () => {
    const { x, t2, answerFirst, held } = await firstRunHeld();
    const servedBy: string[] = [];
    let old = x.app;
    x.model.respondWith((req) => {
      if (lastUserMessage(req) === 'second') servedBy.push(x.app === old ? 'stopping process' : 'next process');
      return { text: 'ran once' };
    });
    await x.adapter.say(t2, 'second');
    answerFirst();
    await held.entered;
    const claimed = held.answered()!.claimed!.run;
    old = x.app;
    const restarting = x.restart();
    // The shutdown has begun (the coordinator refuses starts) before the call returns.
    await waitFor(async () => (await old.coordinator.startNext('memory:W1:C1:none')).kind === 'stopping');
    held.release();
    // The run's end has unwound (an event-loop turn: its continuations are microtasks) without launching the claim.
    await new Promise((resolve) => setImmediate(resolve));
    expect(old.coordinator.isExecuting(conversationKey(t2))).toBe(false);
    await restarting;
    // The new process took the run over from its released lease and ran the task: once in all.
    await waitFor(() => x.adapter.textsIn(t2).includes('ran once'), 10_000, 'the claimed task run after the restart');
    await x.app.coordinator.idle();
    expect(servedBy).toEqual(['next process']);
    expect(await x.app.runs.get(claimed.id)).toMatchObject({ status: 'interrupted' });
  });
});
