import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../fakes/fake-discord.js';
import { waitFor } from '../fakes/wait-for.js';
import { startDiscordErrand, until, type DiscordErrand } from './discord-harness.js';
import { count, startSharedFixtureServer, toolResults, writeStep, type SharedFixtureServer } from './mcp-e2e-kit.js';
import { startErrand, texts, type Errand } from './slack-harness.js';
import { rememberPrivately } from '../support/private-memory.js';

/*
 * A question (`ask_user`) or an approval prompt of a run that has read its principal's private material (a `me`
 * memory), in a thread others read: the model writes it from what it read (here the locker code), so it is asked of
 * that person alone — Slack: ephemeral in the thread, answered by its buttons there; Discord: in their DM, the
 * thread told only that something waits for them there — and never shows in the thread (DESIGN.md "Private stays
 * private in a shared thread"). Real Bolt / discord.js against the fakes.
 */

const ALICE = 'U0ALICE01';
const CHANNEL = 'C0GENERAL';
const MEMORY = 'Alice locker code is 4711-ZETA';
const secretIn = (text: string) => text.includes('4711');
const recallStep = { toolCalls: [{ name: 'recall', arguments: { query: 'locker code' } }] };

let server: SharedFixtureServer;
let slack: Errand | null = null;
let discord: DiscordErrand | null = null;
beforeAll(async () => {
  server = await startSharedFixtureServer();
});
afterAll(() => server.close());
afterEach(async () => {
  await slack?.app.coordinator.idle();
  await slack?.close();
  slack = null;
  await discord?.app.coordinator.idle();
  await discord?.close();
  discord = null;
});

describe("a private run's questions and approvals", () => {
  it('Slack: ask_user after a private recall is shown to Alice alone, ephemerally, and her click there resumes the run', async () => {
    slack = await startErrand({ env: { STREAMING: 'false' } });
    const { slack: s, model, app } = slack;
    await rememberPrivately(app.store.memory, `slack:${ALICE}`, MEMORY);
    const ask = {
      toolCalls: [
        {
          name: 'ask_user',
          arguments: { question: 'Shall I put 4711-ZETA on the team board?', options: ['Yes', 'No'] },
        },
      ],
    };
    model.reply(recallStep, ask, { text: 'Left it off the board.' });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'what about my locker code?' });

    const asked = (await waitFor(
      () => s.ephemeralMessages.find((m) => m.user === ALICE && m.text.includes('team board')),
      15_000,
      'the question shown to Alice',
    ))!;
    expect(asked.thread_ts).toBe(ts);
    await app.coordinator.idle();
    await s.settle();
    // Nothing of it in the thread: no question, no code.
    expect(texts(s, ts).some((t) => secretIn(t) || t.includes('team board'))).toBe(false);
    const posted = s.calls.filter((c) => c.method !== 'chat.postEphemeral');
    expect(secretIn(JSON.stringify(posted.map((c) => c.args)))).toBe(false);

    const no = /"action_id":"([^"]+)","text":\{"type":"plain_text","text":"No"/.exec(JSON.stringify(asked.blocks))?.[1];
    expect(no).toBeDefined();
    const click = await s.clickInEphemeral({ user: ALICE, actionId: no! });
    // The run goes on with her answer; its answer is held for her like any private answer.
    await waitFor(() => model.requests.length === 3, 10_000, 'the run resumed');
    expect(JSON.stringify(toolResults(model.requests[2]!))).toContain('No');
    await waitFor(
      () => s.ephemeralMessages.some((m) => m.user === ALICE && m.text.includes('Left it off the board.')),
      10_000,
      'the answer held for Alice',
    );
    // Her ephemeral question is replaced to say what she answered (Slack updates no ephemeral message otherwise).
    const replaced = (await waitFor(
      () => s.responses.find((r) => r.id === click.responseId),
      5000,
      'the replaced question',
    ))!.body;
    expect(replaced).toMatchObject({ replace_original: true });
    expect(JSON.stringify(replaced)).toContain('answered: *No*');
    await app.coordinator.idle();
    await s.settle();
    expect(texts(s, ts).some(secretIn)).toBe(false);
  }, 60_000);

  it('Discord: an approval prompt after a private recall goes to her DM with its buttons; the thread only points there', async () => {
    discord = await startDiscordErrand({ STREAMING: 'false' }, { externalTools: server.tools });
    const { discord: d, model, app } = discord;
    await rememberPrivately(app.store.memory, `discord:${d.alice.id}`, MEMORY);
    model.reply(recallStep, writeStep('locker 4711-ZETA'), { text: 'Saved your note.' });
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> note my locker code`);

    const dm = await until(() => d.dmChannelOf(d.alice.id), 15_000);
    const approval = await until(
      () => d.botMessagesIn(dm.id).find((m) => m.content.includes('Approval needed') && m.components.length > 0),
      15_000,
    );
    expect(approval.content).toContain('4711-ZETA');
    const pointer = await until(
      () => d.botMessagesIn(msg.id).find((m) => m.content.includes('direct message')),
      10_000,
    );
    expect(pointer.content).toContain(`<@${d.alice.id}>`);
    await app.coordinator.idle();
    const inThread = () =>
      d
        .botMessagesIn(msg.id)
        .map((m) => m.content)
        .join('\n');
    expect(secretIn(inThread())).toBe(false);
    expect(inThread()).not.toContain('Approval needed');

    const buttons = (approval.components as { components: { custom_id: string; label: string }[] }[]).flatMap(
      (row) => row.components,
    );
    const allowOnce = buttons.find((b) => b.label === 'Allow once')!;
    d.clickButton(approval.id, allowOnce.custom_id);
    await waitFor(
      () => count(server.events(), 'wrote plan=locker 4711-ZETA') === 1,
      10_000,
      'the write after her approval',
    );
    await until(() => d.botMessagesIn(dm.id).find((m: FakeMessage) => m.content.includes('Saved your note.')), 10_000);
    await app.coordinator.idle();
    expect(secretIn(inThread())).toBe(false);
  }, 60_000);

  it('Discord: with her DMs closed, the question is not asked in the thread; the thread says why and the run waits', async () => {
    discord = await startDiscordErrand({ STREAMING: 'false' });
    const { discord: d, model, app } = discord;
    d.alice.dmsClosed = true;
    await rememberPrivately(app.store.memory, `discord:${d.alice.id}`, MEMORY);
    const ask = {
      toolCalls: [
        {
          name: 'ask_user',
          arguments: { question: 'Shall I put 4711-ZETA on the team board?', options: ['Yes', 'No'] },
        },
      ],
    };
    model.reply(recallStep, ask, { text: 'never reached' });
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> what about my locker code?`);
    const note = await until(
      () => d.botMessagesIn(msg.id).find((m) => m.content.includes('could not send you a private message')),
      15_000,
    );
    expect(note.content).toContain(`<@${d.alice.id}>`);
    await app.coordinator.idle();
    const inThread = d
      .botMessagesIn(msg.id)
      .map((m) => m.content)
      .join('\n');
    expect(secretIn(inThread)).toBe(false);
    expect(inThread).not.toContain('team board');
    expect(model.requests).toHaveLength(2);
    expect((await app.store.consoleQueries.activeRuns(10)).map((r) => r.status)).toEqual(['waiting_user']);
  }, 60_000);
});
