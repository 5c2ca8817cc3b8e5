import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI, type FakeStep, type RecordedRequest } from '../fakes/fake-openai.js';
import { FakeSlack } from '../fakes/fake-slack.js';
import { seededRandom as random } from '../fakes/seeded-random.js';
import { waitFor } from '../fakes/wait-for.js';
import { useTestDatabase } from '../support/test-database.js';
import {
  databaseQuery,
  noRunLeftWorking,
  outputsOf,
  restartSlackProcess,
  startSlackCluster,
  type ClusterProcess,
  type SlackClusterOptions,
} from './kits/scaleout-kit.js';

/**
 * Chaos across processes: three Errand processes (the `npm start` entry, environment only) on one PostgreSQL
 * database behind the fake Slack in HTTP mode, which spreads deliveries round-robin over the live receivers.
 * Conversations arrive while any of the processes is SIGKILLed at seeded random moments and started again:
 * once only after its lease ran out (its runs are taken over by the others), the other times at once (it
 * takes its own runs back). Each conversation posts a progress update, adds a to-do and answers; the to-do's
 * run answers too. At the end every expected output is in its thread exactly once, and no run is left
 * running, no to-do open and nothing unposted. The seed is printed; SOAK_SEED replays it.
 */

const LEASE_SECONDS = 5;
const CONVERSATIONS = 8;
const KILLS = 3;
const ALICE = 'U0ALICE01';
/** A channel per conversation, so Slack's per-channel pace (about a post a second) does not set the test's length. */
const channelOf = (k: number) => `C0CHAOS${String(k).padStart(3, '0')}`;
const BASE_SEED = Number(process.env.SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31));

const updateText = (k: number) => `conv-${k} progress update`;
const todoDone = (k: number) => `conv-${k} to-do done`;
const answerText = (k: number) => `conv-${k} all done`;
/** What recovery leaves of a streamed answer it takes back (outbox/preview-retraction.ts). */
const RETRACTED = '(interrupted';
const GAVE_UP = '❌ I gave up on';

type Msg = RecordedRequest['messages'][number];

function callsOf(m: Msg): { id: string; name: string }[] {
  if (!Array.isArray(m.tool_calls)) return [];
  return (m.tool_calls as { id: string; function: { name: string } }[]).map((c) => ({
    id: c.id,
    name: c.function.name,
  }));
}

/**
 * The scripted model, deciding each step from the transcript it is sent, so a run resumed or taken over goes on
 * where its transcript stops: update → to-do (checked with list_tasks when the add was cut off) → answer; the
 * to-do's own run answers once.
 */
function nextStep(request: RecordedRequest): FakeStep {
  const msgs = request.messages.filter((m) => m.role !== 'system');
  const k = Number(/conv-(\d+)/.exec(msgs.map((m) => String(m.content ?? '')).join(' '))?.[1] ?? -1);
  const resultOf = (id: string) => String(msgs.find((m) => m.role === 'tool' && m.tool_call_id === id)?.content ?? '');
  const calls = msgs.flatMap(callsOf);
  const lastUser = [...msgs].reverse().find((m) => m.role === 'user');
  if (String(lastUser?.content ?? '').includes('[To-do #')) return { text: todoDone(k) };
  if (!calls.some((c) => c.name === 'send_update' && resultOf(c.id).includes('"posted":true')))
    return { toolCalls: [{ name: 'send_update', arguments: { text: updateText(k) } }] };
  const last = [...calls].reverse().find((c) => c.name === 'add_task' || c.name === 'list_tasks');
  const added =
    last !== undefined &&
    ((last.name === 'add_task' && resultOf(last.id).includes('"ok":true')) ||
      (last.name === 'list_tasks' && resultOf(last.id).includes(`conv-${k} to-do`)));
  if (!added) {
    if (last?.name === 'add_task') return { toolCalls: [{ name: 'list_tasks', arguments: {} }] };
    return {
      toolCalls: [
        { name: 'add_task', arguments: { title: `conv-${k} to-do`, description: `conv-${k} to-do: say it is done` } },
      ],
    };
  }
  return { text: answerText(k) };
}

const db = useTestDatabase();
const query = databaseQuery(db);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(db.skip)('three processes on one PostgreSQL database, SIGKILLed at random while they work', () => {
  let slack: FakeSlack;
  let model: FakeOpenAI;
  let dir: string;
  let options: SlackClusterOptions;
  let processes: ClusterProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'errand-chaos-'));
    slack = await FakeSlack.start({ rateLimit: null });
    model = await startFakeOpenAI();
    options = {
      ids: ['chaos-1', 'chaos-2', 'chaos-3'],
      slack,
      model,
      db,
      dir,
      env: { RUN_LEASE_SECONDS: String(LEASE_SECONDS), LOG_LEVEL: 'info' },
    };
    processes = await startSlackCluster(options);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.errand.kill()));
    await slack?.close();
    await model?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`${CONVERSATIONS} conversations, ${KILLS} SIGKILLs of any process: every output in its thread exactly once, nothing left working`, async () => {
    process.stdout.write(`scaleout-chaos: SOAK_SEED=${BASE_SEED}\n`);
    const rand = random(BASE_SEED);
    const latency = random(BASE_SEED + 1);
    // Model latency varies, so kills land in every phase of a step.
    model.respondWith((request) => ({ ...nextStep(request), gate: sleep(Math.floor(latency() * 300)) }) as FakeStep);
    const log: string[] = [];
    const started = Date.now();
    const threads = new Map<number, string>();
    const texts = (k: number) => (threads.has(k) ? slack.botTexts(channelOf(k), threads.get(k)!) : []);
    /** Posts that stand: a streamed answer that recovery took back is not one. */
    const count = (k: number, needle: string) =>
      texts(k).filter((t) => t.includes(needle) && !t.includes(RETRACTED)).length;

    // Conversations arrive in a wave before each kill, all processes up, so every kill lands among runs at work.
    let wavesOpen = 0;
    let wavesSent = 0;
    const mentions = (async () => {
      for (let wave = 0; wave < KILLS; wave++) {
        await waitFor(() => wavesOpen > wave, 120_000, `wave ${wave + 1} to open`);
        for (let k = 1; k <= CONVERSATIONS; k++) {
          if (Math.floor(((k - 1) * KILLS) / CONVERSATIONS) !== wave) continue;
          await sleep(Math.floor(rand() * 200));
          const { ts, deliveries } = await slack.mention({
            user: ALICE,
            channel: channelOf(k),
            text: `conv-${k} please work`,
            order: 'together',
          });
          threads.set(k, ts);
          expect(
            deliveries.map((d) => d.status),
            `conv-${k}'s deliveries`,
          ).toEqual([200, 200]);
        }
        wavesSent = wave + 1;
      }
    })();
    const kills = (async () => {
      for (let kill = 0; kill < KILLS; kill++) {
        wavesOpen = kill + 1;
        await waitFor(() => wavesSent > kill, 120_000, `wave ${kill + 1} to be sent`);
        await sleep(200 + Math.floor(rand() * 1000));
        // Any process; one with runs at work when there is one.
        const busy = new Set(
          (
            await query<{ owner: string }>(
              `select distinct owner from runs where status = 'running' and owner is not null`,
            )
          ).map((r) => r.owner),
        );
        const candidates = processes.map((_, i) => i).filter((i) => busy.size === 0 || busy.has(processes[i]!.id));
        const i = candidates[Math.floor(rand() * candidates.length)]!;
        const victim = processes[i]!;
        // The first one stays down past its lease, so the others take its runs over; the rest come back at once.
        const downMs = kill === 0 ? (LEASE_SECONDS + 1) * 1000 : Math.floor(rand() * 500);
        const running = await query<{ n: string }>(
          `select count(*) as n from runs where status = 'running' and owner = $1`,
          [victim.id],
        );
        log.push(
          `kill ${kill + 1} at ${Date.now() - started} ms: ${victim.id} (${running[0]?.n ?? 0} runs running there), down ${downMs} ms`,
        );
        await victim.errand.kill();
        await sleep(downMs);
        processes[i] = await restartSlackProcess(options, victim);
      }
    })();

    const completedAt = new Map<number, number>();
    const complete = (k: number) => {
      const done =
        threads.has(k) && (count(k, GAVE_UP) > 0 || (count(k, answerText(k)) > 0 && count(k, todoDone(k)) > 0));
      if (done && !completedAt.has(k)) completedAt.set(k, Date.now() - started);
      return done;
    };
    const thread = (k: number) => `conv-${k}: ${JSON.stringify(texts(k).map((t) => t.slice(0, 60)))}`;
    try {
      await Promise.all([mentions, kills]);
      log.push(`mentions and kills done after ${Date.now() - started} ms`);
      await waitFor(
        () => Array.from({ length: CONVERSATIONS }, (_, i) => i + 1).every(complete),
        90_000,
        'every conversation to finish',
      ).catch((err: unknown) => {
        const unfinished = [...threads.keys()].filter((k) => !complete(k));
        throw new Error(`${String(err)}; unfinished: ${unfinished.join(', ')}\n${unfinished.map(thread).join('\n')}`);
      });
      log.push(
        `every conversation answered after ${Date.now() - started} ms (${[...completedAt]
          .sort((a, b) => a[0] - b[0])
          .map(([k, ms]) => `conv-${k} ${ms}`)
          .join(', ')})`,
      );
      await noRunLeftWorking(query, processes);
      process.stdout.write(`scaleout-chaos: SOAK_SEED=${BASE_SEED}: ${log.join('; ')}\n`);

      const problems: string[] = [];
      const gaveUpIn: number[] = [];
      for (const k of threads.keys()) {
        const expected = [updateText(k), todoDone(k), answerText(k)];
        if (count(k, GAVE_UP) > 0) {
          // A task interrupted by too many kills is given up with a note: each output at most once, the note once.
          gaveUpIn.push(k);
          for (const e of expected) if (count(k, e) > 1) problems.push(`conv-${k}: "${e}" posted ${count(k, e)} times`);
          if (count(k, GAVE_UP) !== 1) problems.push(`conv-${k}: the give-up note posted ${count(k, GAVE_UP)} times`);
        } else {
          for (const e of expected)
            if (count(k, e) !== 1) problems.push(`conv-${k}: "${e}" posted ${count(k, e)} times`);
        }
        const unexpected = texts(k).filter(
          (t) =>
            !expected.some((e) => t.includes(e)) &&
            !t.startsWith('🔄 I was restarted') &&
            !t.startsWith(GAVE_UP) &&
            !t.includes(RETRACTED) &&
            !t.startsWith('⏳'),
        );
        if (unexpected.length > 0)
          problems.push(`conv-${k}: unexpected posts ${JSON.stringify(unexpected.map((t) => t.slice(0, 80)))}`);
      }
      expect(problems, `${[...threads.keys()].map(thread).join('\n')}`).toEqual([]);
      // Giving up is the exception, not a way to pass: most conversations must get their answer.
      expect(gaveUpIn.length, `given up: ${gaveUpIn.join(', ')}`).toBeLessThanOrEqual(CONVERSATIONS / 4);
    } catch (err) {
      throw new Error(
        `scaleout chaos failed with SOAK_SEED=${BASE_SEED} (${log.join('; ')}): ${err instanceof Error ? err.message : String(err)}\n${outputsOf(processes).slice(-6000)}`,
        { cause: err },
      );
    }
  }, 180_000);
});
