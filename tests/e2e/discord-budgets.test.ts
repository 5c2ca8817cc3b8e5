import { afterEach, describe, expect, it } from 'vitest';
import { nextSnowflake, type FakeDiscord, type FakeUser } from '../fakes/fake-discord.js';
import { waitFor } from '../fakes/wait-for.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { startDiscordErrand, until, type DiscordErrand } from './discord-harness.js';

let e: DiscordErrand | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
});

interface Cast {
  bob: FakeUser;
  admin: FakeUser;
  random: string;
}

/** Errand on the fake Discord with a configuration file written from the fake's own ids (people, a second channel). */
async function start(settings: (d: FakeDiscord, cast: Cast) => Record<string, unknown>): Promise<DiscordErrand & Cast> {
  let cast: Cast | null = null;
  e = await startDiscordErrand((d) => {
    const person = (username: string): FakeUser => {
      const u = { id: nextSnowflake(), username };
      d.users.set(u.id, u);
      return u;
    };
    cast = { bob: person('bob'), admin: person('boss'), random: d.addTextChannel('random').id };
    return errandFileEnv(settings(d, cast));
  });
  e.model.usageWith(() => ({ promptTokens: 700, completionTokens: 300 }));
  return { ...e, ...cast! };
}

/** The bot's texts in a channel or thread, without the transient working notice. */
const texts = (d: FakeDiscord, channelId: string) =>
  d
    .botMessagesIn(channelId)
    .map((m) => m.content)
    .filter((t) => !t.startsWith('⏳ Working'));
const mention = (d: FakeDiscord, channelId: string, text: string, author?: FakeUser) =>
  d.userMessage(channelId, `<@${d.bot.id}> ${text}`, author);
const usageText = async (d: FakeDiscord, user: FakeUser) => {
  const use = d.slashCommand('usage', d.general.id, [], user);
  await until(() => use.responses.length === 1);
  expect(use.responses[0]!.ephemeral).toBe(true);
  return use.responses[0]!.content;
};

describe('token budgets on Discord, end to end', () => {
  it('a run past tokensPerRun stops in its thread with a note', async () => {
    const { discord: d, model } = await start(() => ({ limits: { tokensPerRun: 1500 } }));
    model.reply(
      { toolCalls: [{ name: 'send_update', arguments: { text: 'Looking.' } }] },
      { toolCalls: [{ name: 'send_update', arguments: { text: 'Still looking.' } }] },
    );
    const msg = mention(d, d.general.id, 'dig through everything');
    await waitFor(() => texts(d, msg.id).some((t) => t.startsWith('🪙')), 10_000);
    expect(texts(d, msg.id)).toEqual([
      'Looking.',
      'Still looking.',
      '🪙 I stopped: this run used 2,000 tokens, past its budget of 1,500 tokens per run. Ask me to continue if you want me to keep going.',
    ]);
    expect(model.requests).toHaveLength(2);
  });

  it('a request past tokensPerUserPerDay gets one reply saying when it resets, and no thread; others are still answered', async () => {
    const { discord: d, model, bob } = await start(() => ({ limits: { tokensPerUserPerDay: 1000 } }));
    model.reply({ text: 'First answer.' }, { text: 'Answer for Bob.' });
    const first = mention(d, d.general.id, 'first question');
    await waitFor(() => texts(d, first.id).includes('First answer.'));
    await e!.app.coordinator.idle();

    const threadsBefore = d.callsTo('POST', /\/threads$/).length;
    mention(d, d.general.id, 'second question');
    const refusal = await waitFor(() => texts(d, d.general.id).find((t) => t.includes('🪙')));
    expect(refusal).toMatch(
      new RegExp(
        `^<@${d.alice.id}> 🪙 You've used your daily budget of 1,000 tokens \\(1,000 today\\), so I can't take this request\\. It resets at 00:00 UTC, in \\d+ (h|min)`,
      ),
    );
    expect(d.callsTo('POST', /\/threads$/)).toHaveLength(threadsBefore);

    const forBob = mention(d, d.general.id, 'my question', bob);
    await waitFor(() => texts(d, forBob.id).includes('Answer for Bob.'));
    expect(model.requests).toHaveLength(2);
  });

  it('once tokensPerDay is used up, everyone is refused', async () => {
    const { discord: d, model, bob } = await start(() => ({ limits: { tokensPerDay: 1000 } }));
    model.reply({ text: 'Done.' });
    const first = mention(d, d.general.id, 'use it all');
    await waitFor(() => texts(d, first.id).includes('Done.'));
    await e!.app.coordinator.idle();
    mention(d, d.general.id, 'hello?', bob);
    const refusal = await waitFor(() => texts(d, d.general.id).find((t) => t.includes('🪙')));
    expect(refusal).toMatch(
      new RegExp(`^<@${bob.id}> 🪙 Today's token budget for everyone here \\(1,000 tokens\\) is used up`),
    );
    expect(model.requests).toHaveLength(1);
  });

  it('/usage shows your tokens and what is left; admins also see everyone', async () => {
    const {
      discord: d,
      model,
      bob,
      admin,
    } = await start((_d, c) => ({
      access: { admins: [`discord:${c.admin.id}`] },
      limits: { tokensPerUserPerDay: 10_000 },
    }));
    model.reply({ text: 'One.' }, { text: 'Two.' });
    const a = mention(d, d.general.id, 'one');
    await waitFor(() => texts(d, a.id).includes('One.'));
    const b = mention(d, d.general.id, 'two', bob);
    await waitFor(() => texts(d, b.id).includes('Two.'));
    await e!.app.coordinator.idle();

    const mine = await usageText(d, d.alice);
    expect(mine).toContain('**Your usage**: today 1,000 tokens (prompt 700 / completion 300), last 30 days 1,000.');
    expect(mine).toContain('• Per person per day: 10,000 — 9,000 left today');
    expect(mine).not.toContain(bob.id);
    const everyone = await usageText(d, admin);
    expect(everyone).toContain('**Everyone**: today 2,000 tokens (prompt 1,400 / completion 600), last 30 days 2,000.');
    expect(everyone).toContain(`<@${d.alice.id}> — 1,000 (today 1,000)`);
    expect(everyone).toContain(`<@${bob.id}> — 1,000 (today 1,000)`);
  });
});

describe('per-channel settings on Discord', () => {
  it('two channels get their own extra instructions and model, in the threads opened there too', async () => {
    const {
      discord: d,
      model,
      random,
    } = await start((fake, c) => ({
      channels: {
        [`discord:${fake.general.id}`]: { prompt: 'Answer in French.', model: 'model-for-general' },
        [`discord:${c.random}`]: { prompt: 'Answer like a pirate.', model: 'model-for-random' },
      },
    }));
    model.reply({ text: 'Bonjour.' }, { text: 'Arr.' });
    const g = mention(d, d.general.id, 'hi');
    await waitFor(() => texts(d, g.id).includes('Bonjour.'));
    const r = mention(d, random, 'hi');
    await waitFor(() => texts(d, r.id).includes('Arr.'));
    expect(model.requests.map((q) => q.model)).toEqual(['model-for-general', 'model-for-random']);
    expect(String(model.requests[0]!.messages[0]!.content)).toMatch(/\nAnswer in French\.$/);
    expect(String(model.requests[1]!.messages[0]!.content)).toMatch(/\nAnswer like a pirate\.$/);
  });
});
