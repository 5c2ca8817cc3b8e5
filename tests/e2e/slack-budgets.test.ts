import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../fakes/wait-for.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { sqliteDb } from '../fakes/sqlite-db.js';
import { startErrand, texts, type Errand } from './slack-harness.js';

const db = (app: Errand['app']) => sqliteDb(app.store).$client;

const GENERAL = 'C0GENERAL';
const RANDOM = 'C0RANDOM01';
const ALICE = 'U0ALICE01';
const BOB = 'U0BOB0001';
const ADMIN = 'U0ADMIN01';

let e: Errand | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
});

async function start(settings: Record<string, unknown>): Promise<Errand> {
  e = await startErrand({ env: errandFileEnv(settings) });
  e.model.usageWith(() => ({ promptTokens: 700, completionTokens: 300 }));
  return e;
}

const usageText = async (e: Errand, user: string) => {
  const r = await e.slack.slashCommand({ command: '/usage', user, channel: GENERAL });
  expect(r.status).toBe(200);
  return (JSON.parse(r.body) as { response_type: string; text: string }).text;
};

describe('token budgets on Slack, end to end', () => {
  it('a run past tokensPerRun stops in its thread with a note', async () => {
    const { slack: s, model } = await start({ limits: { tokensPerRun: 1500 } });
    model.reply(
      { toolCalls: [{ name: 'send_update', arguments: { text: 'Looking.' } }] },
      { toolCalls: [{ name: 'send_update', arguments: { text: 'Still looking.' } }] },
    );
    const { ts } = await s.mention({ user: ALICE, channel: GENERAL, text: 'dig through everything' });
    await waitFor(() => texts(s, ts).some((t) => t.startsWith('🪙')), 10_000);
    expect(texts(s, ts)).toEqual([
      'Looking.',
      'Still looking.',
      '🪙 I stopped: this run used 2,000 tokens, past its budget of 1,500 tokens per run. Ask me to continue if you want me to keep going.',
    ]);
    expect(model.requests).toHaveLength(2);
  });

  it('a request past tokensPerUserPerDay is refused privately, saying when it resets; others are still answered', async () => {
    const { slack: s, model } = await start({ limits: { tokensPerUserPerDay: 1000 } });
    model.reply({ text: 'First answer.' }, { text: 'Answer for Bob.' });
    const first = await s.mention({ user: ALICE, channel: GENERAL, text: 'first question' });
    await waitFor(() => texts(s, first.ts).includes('First answer.'));
    await e!.app.coordinator.idle();

    const second = await s.mention({ user: ALICE, channel: GENERAL, text: 'second question', order: 'together' });
    const refusal = await waitFor(() => s.ephemerals.find((x) => x.user === ALICE));
    expect(refusal).toMatchObject({ channel: GENERAL, thread_ts: second.ts });
    expect(refusal!.text).toMatch(
      /^🪙 You've used your daily budget of 1,000 tokens \(1,000 today\), so I can't take this request\. It resets at 00:00 UTC, in \d+ (h|min)/,
    );
    const bob = await s.mention({ user: BOB, channel: GENERAL, text: 'my question' });
    await waitFor(() => texts(s, bob.ts).includes('Answer for Bob.'));
    expect(s.ephemerals).toHaveLength(1);
    expect(texts(s, second.ts)).toEqual([]);
    expect(model.requests).toHaveLength(2);
  });

  it('once tokensPerDay is used up, everyone is refused', async () => {
    const { slack: s, model } = await start({ limits: { tokensPerDay: 1000 } });
    model.reply({ text: 'Done.' });
    const first = await s.mention({ user: ALICE, channel: GENERAL, text: 'use it all' });
    await waitFor(() => texts(s, first.ts).includes('Done.'));
    await e!.app.coordinator.idle();
    await s.userMessage({ user: BOB, channel: 'D0BOB00001', text: 'hello?' });
    const refusal = await waitFor(() => s.ephemerals.find((x) => x.user === BOB));
    expect(refusal!.text).toMatch(/^🪙 Today's token budget for everyone here \(1,000 tokens\) is used up/);
    expect(model.requests).toHaveLength(1);
  });

  it('/usage shows your tokens and what is left; admins also see everyone', async () => {
    const { slack: s, model } = await start({
      access: { admins: [`slack:${ADMIN}`] },
      limits: { tokensPerUserPerDay: 10_000 },
    });
    model.reply({ text: 'One.' }, { text: 'Two.' });
    const a = await s.mention({ user: ALICE, channel: GENERAL, text: 'one' });
    await waitFor(() => texts(s, a.ts).includes('One.'));
    const b = await s.mention({ user: BOB, channel: GENERAL, text: 'two' });
    await waitFor(() => texts(s, b.ts).includes('Two.'));
    await e!.app.coordinator.idle();

    const mine = await usageText(e!, ALICE);
    expect(mine).toContain('*Your usage*: today 1,000 tokens (prompt 700 / completion 300), last 30 days 1,000.');
    expect(mine).toContain('• Per person per day: 10,000 — 9,000 left today');
    expect(mine).not.toContain(BOB);
    const admin = await usageText(e!, ADMIN);
    expect(admin).toContain('*Your usage*: today 0 tokens (prompt 0 / completion 0), last 30 days 0.');
    expect(admin).toContain('*Everyone*: today 2,000 tokens (prompt 1,400 / completion 600), last 30 days 2,000.');
    expect(admin).toMatch(
      /1\. <@U0(ALICE01|BOB0001)> — 1,000 \(today 1,000\)\n2\. <@U0(ALICE01|BOB0001)> — 1,000 \(today 1,000\)/,
    );
  });
});

describe('a streamed answer stopped before it ends (Slack, end to end)', () => {
  it('is charged although its usage never came (estimated from the request and the text received), so stopping cannot dodge a daily budget', async () => {
    const { slack: s, model, app } = await start({ limits: { tokensPerUserPerDay: 400 } });
    const long = 'This answer is long and slow to arrive. '.repeat(40);
    model.streamPace({ chunkChars: 3, chunkDelayMs: 30 });
    model.reply({ text: long });
    const { ts } = await s.mention({ user: ALICE, channel: GENERAL, text: 'write slowly' });
    await waitFor(() => s.callsOf('chat.appendStream').length > 0, 20_000, 'the stream to be under way');
    await s.userMessage({ user: ALICE, channel: GENERAL, text: 'stop', threadTs: ts });
    await waitFor(() => model.requests[0]!.aborted, 10_000, 'the model request to be cut');
    await app.coordinator.idle();
    // The usage chunk (700 + 300 from the fake) never arrived: the charge is Errand's estimate.
    const charged = db(app)
      .prepare('select prompt_tokens as prompt, completion_tokens as completion from usage_daily where user = ?')
      .get(`slack:${ALICE}`) as { prompt: number; completion: number } | undefined;
    expect(charged?.prompt).toBeGreaterThan(100);
    expect(charged?.completion).toBeGreaterThan(0);
    expect(charged!.completion).toBeLessThan(long.length / 4);
    expect(model.requests[0]!.chunksSent).toBeLessThan(long.length / 3);
    // Over the day's 400 tokens now: the next request is refused, as after an answer that ended.
    await s.mention({ user: ALICE, channel: GENERAL, text: 'again', order: 'together' });
    const refusal = await waitFor(() => s.ephemerals.find((x) => x.user === ALICE), 10_000, 'the refusal');
    expect(refusal!.text).toMatch(/^🪙 You've used your daily budget of 400 tokens/);
    expect(model.requests).toHaveLength(1);
  });
});

describe('per-channel settings on Slack', () => {
  it('two channels get their own extra instructions and model', async () => {
    const { slack: s, model } = await start({
      channels: {
        [`slack:${GENERAL}`]: { prompt: 'Answer in French.', model: 'model-for-general' },
        [`slack:${RANDOM}`]: { prompt: 'Answer like a pirate.', model: 'model-for-random' },
      },
    });
    model.reply({ text: 'Bonjour.' }, { text: 'Arr.' }, { text: 'Plain.' });
    const g = await s.mention({ user: ALICE, channel: GENERAL, text: 'hi' });
    await waitFor(() => texts(s, g.ts).includes('Bonjour.'));
    const r = await s.mention({ user: ALICE, channel: RANDOM, text: 'hi' });
    await waitFor(() => texts(s, r.ts, RANDOM).includes('Arr.'));
    await s.userMessage({ user: ALICE, channel: 'D0ALICE01', text: 'hi' });
    await waitFor(() => s.botTexts('D0ALICE01', null).includes('Plain.'));

    const system = (i: number) => String(model.requests[i]!.messages[0]!.content);
    expect(model.requests.map((q) => q.model)).toEqual(['model-for-general', 'model-for-random', 'gpt-4o-mini']);
    expect(system(0)).toMatch(/Instructions for this channel.*\nAnswer in French\.$/);
    expect(system(0)).not.toContain('pirate');
    expect(system(1)).toMatch(/\nAnswer like a pirate\.$/);
    expect(system(2)).not.toMatch(/French|pirate|Instructions for this channel/);
  });
});
