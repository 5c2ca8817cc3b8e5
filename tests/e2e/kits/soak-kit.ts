import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord, type FakeMessage } from '../../fakes/fake-discord.js';
import { startFakeOpenAI, type FakeOpenAI, type FakeStep, type RecordedRequest } from '../../fakes/fake-openai.js';
import { waitFor } from '../../fakes/wait-for.js';
import { seededRandom as random } from '../../fakes/seeded-random.js';
import { discordEnv, startErrandProcess, type ErrandProcess } from '../errand-process.js';

/**
 * "Restarts lose nothing", measured (soak-restarts.test.ts, a fresh seed each run): conversations mix answers, progress updates, questions
 * answered by a person, to-dos and long multi-piece replies while the process is SIGKILLed at random
 * (seeded) moments — half of them in the window after Discord stored a post (an outbox post or a
 * streamed preview message) and before Errand heard back. At the end every expected output is in its
 * thread exactly once.
 *
 * Person-side messages are only sent while the process is up, and no kill lands before the model has
 * seen them: a message lost on its way in is the inbound path's concern, not what this test measures.
 */

const LONG_PARAGRAPHS = 14;

const updateText = (k: number) => `conv-${k} progress update`;
const questionText = (k: number) => `conv-${k} shall I go on?`;
const todoDone = (k: number) => `conv-${k} to-do done`;
const paragraph = (k: number, p: number) =>
  `⟦${k}.${p}⟧ ${'This long reply goes on and on so that it needs several messages. '.repeat(3).trim()}`;
const longReply = (k: number) => Array.from({ length: LONG_PARAGRAPHS }, (_, p) => paragraph(k, p + 1)).join('\n\n');

type Msg = RecordedRequest['messages'][number];
interface Call {
  id: string;
  name: string;
}

function callsOf(m: Msg): Call[] {
  if (!Array.isArray(m.tool_calls)) return [];
  return (m.tool_calls as { id: string; function: { name: string } }[]).map((c) => ({
    id: c.id,
    name: c.function.name,
  }));
}

/**
 * The scripted model, deciding each step from the transcript it is sent (as a real model would), so a
 * run resumed after a restart goes on where the transcript says it stopped: update → to-do (checked
 * with list_tasks when the add was interrupted) → question → long reply → done; a to-do run answers once.
 */
function nextStep(request: RecordedRequest): FakeStep {
  const msgs = request.messages.filter((m) => m.role !== 'system');
  const k = Number(/conv-(\d+)/.exec(msgs.map((m) => String(m.content ?? '')).join(' '))?.[1] ?? -1);
  const resultOf = (id: string) => String(msgs.find((m) => m.role === 'tool' && m.tool_call_id === id)?.content ?? '');
  const calls = msgs.flatMap(callsOf);
  const said = (text: string) => msgs.some((m) => m.role === 'assistant' && String(m.content ?? '').includes(text));
  const lastUser = [...msgs].reverse().find((m) => m.role === 'user');
  if (String(lastUser?.content ?? '').includes('[To-do #')) {
    const after = msgs.slice(msgs.lastIndexOf(lastUser!));
    const done = after.some((m) => m.role === 'assistant' && String(m.content ?? '').includes(todoDone(k)));
    return done ? { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] } : { text: todoDone(k) };
  }
  if (!calls.some((c) => c.name === 'send_update' && resultOf(c.id).includes('"posted":true'))) {
    return { toolCalls: [{ name: 'send_update', arguments: { text: updateText(k) } }] };
  }
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
  if (!calls.some((c) => c.name === 'ask_user' && resultOf(c.id).includes('"answer":"yes"'))) {
    return { toolCalls: [{ name: 'ask_user', arguments: { question: questionText(k) } }] };
  }
  if (!said(`⟦${k}.1⟧`)) return { text: longReply(k) };
  return { toolCalls: [{ name: 'task_complete', arguments: { summary: 'replied' } }] };
}

/** How one soak file runs: how many conversations, how many SIGKILLs, and the seed of its random moments. */
export interface SoakPlan {
  readonly conversations: number;
  readonly kills: number;
  /** Added to the seed (SOAK_SEED, to run a failed case again, or a fresh random one) so that the files differ. */
  readonly seedOffset: number;
}

/** Registers the soak's describe block with its own fakes, data folder and Errand process. */
export function soakRestarts({ conversations: CONVERSATIONS, kills: KILLS, seedOffset }: SoakPlan): void {
  const BASE_SEED = Number(process.env.SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31));
  const SEED = BASE_SEED + seedOffset;
  let discord: FakeDiscord;
  let model: FakeOpenAI;
  let dir: string;
  let errand: ErrandProcess | null = null;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'errand-soak-'));
    discord = await startFakeDiscord();
    model = await startFakeOpenAI();
  });

  afterAll(async () => {
    await errand?.kill();
    await discord.close();
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('restarts lose nothing and post nothing twice', () => {
    it(`${CONVERSATIONS} conversations, ${KILLS} SIGKILLs at random moments: every output in its thread exactly once`, async () => {
      const rand = random(SEED);
      const latency = random(SEED + 1);
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      // Model latency varies, so kills land in every phase of a step.
      model.respondWith((request) => ({ ...nextStep(request), gate: sleep(Math.floor(latency() * 200)) }) as FakeStep);
      /** The model saw `text` in conversation k (every request of k carries its goal). */
      const seenByModel = (k: number, text: string) =>
        model.requests.some((r) => {
          const all = r.messages.map((m) => String(m.content ?? '')).join('\n');
          return all.includes(`conv-${k} please work`) && all.includes(text);
        });

      let up = false;
      const start = async () => {
        const before = discord.stats.identifies;
        // Streaming on (the default): answers show as previews, which a kill leaves half-written for recovery to take back.
        errand = startErrandProcess({ ...discordEnv(discord, model, dir), MAX_CONCURRENT_RUNS: String(CONVERSATIONS) });
        await waitFor(() => discord.stats.identifies > before, 30_000, 'Errand to connect');
        up = true;
      };
      await start();

      const threads = new Map<number, string>();
      /** What a person sent that the model has not seen yet: no kill until it has. */
      const unconfirmed = new Map<number, string>();
      for (let k = 1; k <= CONVERSATIONS; k++) {
        const m = discord.userMessage(discord.general.id, `<@${discord.bot.id}> conv-${k} please work`);
        threads.set(k, m.id);
        unconfirmed.set(k, `conv-${k} please work`);
      }
      const answered = new Set<string>();
      const person = setInterval(() => {
        for (const [k, text] of unconfirmed) if (seenByModel(k, text)) unconfirmed.delete(k);
        if (!up) return;
        for (const [k, thread] of threads) {
          for (const q of discord
            .botMessagesIn(thread)
            .filter((m) => m.content.includes(questionText(k)) && !answered.has(m.id))) {
            answered.add(q.id);
            discord.userMessage(thread, 'yes');
            unconfirmed.set(k, '"answer":"yes"');
          }
        }
      }, 20);
      const log: string[] = [];
      try {
        for (let kill = 1; kill <= KILLS; kill++) {
          await sleep(800 + Math.floor(rand() * 2500));
          // The person holds back from here to the restart, and everything they sent has reached the model.
          up = false;
          await waitFor(() => unconfirmed.size === 0, 30_000, 'the model to see what people sent');
          const inWindow = rand() < 0.5;
          if (inWindow) {
            // Posts that carry a nonce: the outbox's, and each preview message's (recorded before its post leaves).
            discord.holdAnswers(
              /^\/channels\/\d+\/messages$/,
              (call) => (call.body as { nonce?: unknown } | null)?.nonce !== undefined,
            );
            await waitFor(() => discord.heldAnswers() > 0, 3000, 'a post to hold').catch(() => undefined);
          }
          log.push(`kill ${kill}${inWindow ? ` with ${discord.heldAnswers()} answers held` : ''}`);
          await errand!.kill();
          discord.releaseAnswers();
          await start();
        }

        // A task interrupted by too many of the kills is given up with a note (recovery's restart limit): on a
        // loaded machine the random kills can land in one slow task often enough. Then its answer never comes,
        // and what it did post must still be there once.
        const gaveUp = (texts: string[]) => texts.some((t) => t.startsWith('❌ I gave up on task #'));
        const complete = (k: number) => {
          const texts = discord.botMessagesIn(threads.get(k)!).map((m) => m.content);
          const answered = Array.from({ length: LONG_PARAGRAPHS }, (_, p) => `⟦${k}.${p + 1}⟧`).every((tag) =>
            texts.some((t) => t.includes(tag)),
          );
          return gaveUp(texts) || (answered && texts.some((t) => t.includes(todoDone(k))));
        };
        await waitFor(() => [...threads.keys()].every(complete), 60_000, 'every conversation to finish').catch(
          (err: unknown) => {
            const unfinished = [...threads.keys()].filter((k) => !complete(k));
            throw new Error(
              `${String(err)}; unfinished: ${unfinished.join(', ')}\n${summary(unfinished.slice(0, 3))}\nlast output: ${errand?.output().slice(-3000) ?? ''}`,
            );
          },
        );
        await sleep(500);

        const problems: string[] = [];
        const gaveUpIn: number[] = [];
        for (const [k, thread] of threads) {
          const texts = discord.botMessagesIn(thread).map((m) => m.content);
          const count = (needle: string) => texts.filter((t) => t.includes(needle)).length;
          const expected = [
            updateText(k),
            questionText(k),
            todoDone(k),
            ...Array.from({ length: LONG_PARAGRAPHS }, (_, p) => `⟦${k}.${p + 1}⟧`),
          ];
          const givenUp = gaveUp(texts);
          if (givenUp) {
            gaveUpIn.push(k);
            expected.push('❌ I gave up on task #');
            // Given up (the request itself, or its to-do): each output at most once, the note exactly once.
            for (const e of expected) if (count(e) > 1) problems.push(`conv-${k}: "${e}" posted ${count(e)} times`);
            if (count('❌ I gave up on task #') !== 1)
              problems.push(`conv-${k}: the give-up note posted ${count('❌ I gave up on task #')} times`);
          } else {
            for (const e of expected) if (count(e) !== 1) problems.push(`conv-${k}: "${e}" posted ${count(e)} times`);
          }
          const tags = texts.flatMap((t) => [...t.matchAll(/⟦\d+\.(\d+)⟧/g)].map((m) => Number(m[1])));
          if (tags.some((p, i) => i > 0 && p < tags[i - 1]!))
            problems.push(`conv-${k}: long reply out of order: ${tags.join(',')}`);
          const unexpected = texts.filter(
            (t) =>
              !expected.some((e) => t.includes(e)) &&
              !t.startsWith('🔄 I was restarted') &&
              !t.startsWith('⏳ Working'),
          );
          if (unexpected.length > 0)
            problems.push(`conv-${k}: unexpected posts ${JSON.stringify(unexpected.map((t) => t.slice(0, 80)))}`);
        }
        expect(problems, `SOAK_SEED=${BASE_SEED} (${log.join('; ')})\n${summary([])}`).toEqual([]);
        // Giving up is the exception, not a way for the soak to pass: most conversations must get their answer.
        expect(gaveUpIn.length, `given up: ${gaveUpIn.join(', ')}`).toBeLessThanOrEqual(CONVERSATIONS / 3);
      } catch (err) {
        throw new Error(
          `soak failed with SOAK_SEED=${BASE_SEED} (${log.join('; ')}): ${err instanceof Error ? err.message : String(err)}`,
          { cause: err },
        );
      } finally {
        clearInterval(person);
      }

      function summary(ks: number[]): string {
        return ks
          .map(
            (k) =>
              `conv-${k}: ${JSON.stringify(discord.botMessagesIn(threads.get(k)!).map((m: FakeMessage) => m.content.slice(0, 60)))}`,
          )
          .join('\n');
      }
    }, 180_000);
  });
}
