import { afterEach, describe, expect, it } from 'vitest';
import { memoryForgetActionId } from '../../src/chat/action-id.js';
import { waitFor } from '../fakes/wait-for.js';
import { toolResultJson } from '../support/tool-result-json.js';
import { startErrand, texts, type Errand } from './slack-harness.js';

const GENERAL = 'C0GENERAL';
const RANDOM = 'C0RANDOM01';
const ALICE = 'U0ALICE01';
const BOB = 'U0BOB0001';

let e: Errand | null = null;
afterEach(async () => {
  await e?.app.coordinator.idle();
  await e?.close();
  e = null;
});

/** The ephemeral answer to a slash command or a click, as Slack shows it. */
const replyTo = async (s: Errand['slack'], sent: { responseId: string }) =>
  (await waitFor(() => s.responses.find((r) => r.id === sent.responseId), 5000, 'the private answer'))!.body as {
    text: string;
    blocks?: { type: string; elements?: { action_id: string }[] }[];
  };
const buttonIds = (body: { blocks?: { type: string; elements?: { action_id: string }[] }[] }) =>
  (body.blocks ?? [])
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements ?? [])
    .map((el) => el.action_id);

describe('what Errand remembers, on Slack end to end', () => {
  it("lists your memories and this channel's in /memory with Forget buttons; a click forgets at once, for the next request", async () => {
    e = await startErrand();
    const { slack: s, model, app } = e;
    model.reply(
      {
        toolCalls: [
          { name: 'remember', arguments: { text: 'Alice is on the payments team' } },
          { name: 'remember', arguments: { text: 'Releases go out on Thursdays', scope: 'channel' } },
        ],
      },
      { text: 'I will remember both.' },
    );
    const { ts } = await s.mention({
      user: ALICE,
      channel: GENERAL,
      text: 'remember that I am on payments, and that releases here go out on Thursdays',
    });
    await waitFor(() => texts(s, ts).includes('I will remember both.'), 10_000, 'the answer');
    await app.coordinator.idle();
    const [mine, channel] = model.requests[1]!.messages.filter((m) => m.role === 'tool').map(
      (m) => toolResultJson(m.content) as { memory_id: number },
    );

    const alices = await replyTo(s, await s.slashCommand({ command: '/memory', user: ALICE, channel: GENERAL }));
    expect(alices.text).toContain(`#${mine!.memory_id} Alice is on the payments team`);
    expect(alices.text).toContain(`#${channel!.memory_id} Releases go out on Thursdays`);
    expect(buttonIds(alices)).toEqual([
      memoryForgetActionId(mine!.memory_id),
      memoryForgetActionId(channel!.memory_id),
    ]);

    // Bob sees the channel's memory, never Alice's; elsewhere he sees neither.
    const bobs = await replyTo(s, await s.slashCommand({ command: '/memory', user: BOB, channel: GENERAL }));
    expect(bobs.text).toContain('Releases go out on Thursdays');
    expect(bobs.text).not.toContain('payments');
    expect(buttonIds(bobs)).toEqual([memoryForgetActionId(channel!.memory_id)]);
    const elsewhere = await replyTo(s, await s.slashCommand({ command: '/memory', user: BOB, channel: RANDOM }));
    expect(elsewhere.text).not.toContain('Thursdays');
    // Bob cannot forget Alice's memory by its id: to him it does not exist.
    const refused = await replyTo(
      s,
      await s.slashCommand({ command: '/memory', text: `forget ${mine!.memory_id}`, user: BOB, channel: GENERAL }),
    );
    expect(refused.text).toMatch(new RegExp(`^There is no memory #${mine!.memory_id} that you can see here`));

    const listing = await s.slashCommand({ command: '/memory', user: ALICE, channel: GENERAL });
    const forgot = await replyTo(
      s,
      await s.clickInReply({
        user: ALICE,
        channel: GENERAL,
        responseId: listing.responseId,
        actionId: memoryForgetActionId(mine!.memory_id),
      }),
    );
    expect(forgot.text).toContain(`Forgot #${mine!.memory_id}`);

    model.reply({ text: 'Thursdays.' });
    const next = await s.mention({ user: ALICE, channel: GENERAL, text: 'when do releases go out?' });
    await waitFor(() => texts(s, next.ts).includes('Thursdays.'), 10_000, 'the next answer');
    const system = String(model.requests.at(-1)!.messages[0]!.content);
    expect(system).toContain('Releases go out on Thursdays');
    expect(system).not.toContain('Alice is on the payments team');
  });

  it('says in /memory that conversations of the channel have a summary, and forgets by `/memory forget <id>`', async () => {
    e = await startErrand();
    const { slack: s, app } = e;
    const conversation = await app.conversations.ensure({
      platform: 'slack',
      workspace: s.teamId,
      channel: GENERAL,
      thread: '1700000000.000100',
    });
    await app.store.memory.saveSummary(conversation, 0, 'Earlier: the team chose Postgres.', 10);
    const stored = await app.store.memory.remember({
      scope: 'me',
      subject: `slack:${ALICE}`,
      text: 'Alice prefers short answers',
      createdBy: `slack:${ALICE}`,
    });

    const listing = await replyTo(s, await s.slashCommand({ command: '/memory', user: ALICE, channel: GENERAL }));
    expect(listing.text).toMatch(/1 conversation here has a summary of older messages/);
    expect(
      (await replyTo(s, await s.slashCommand({ command: '/memory', user: ALICE, channel: RANDOM }))).text,
    ).not.toContain('summary');

    const forgot = await replyTo(
      s,
      await s.slashCommand({ command: '/memory', text: `forget ${stored.id}`, user: ALICE, channel: GENERAL }),
    );
    expect(forgot.text).toBe(`Forgot #${stored.id}: “Alice prefers short answers”. It is gone from my next request.`);
    expect(await app.store.memory.memory(stored.id)).toBeNull();
    expect(
      (
        await replyTo(
          s,
          await s.slashCommand({ command: '/memory', text: 'forget twelve', user: ALICE, channel: GENERAL }),
        )
      ).text,
    ).toMatch(/^"twelve" is not a memory id/);
  });

  it('shows on the App Home what Errand remembers about you, and only about you', async () => {
    e = await startErrand();
    const { slack: s, app } = e;
    const homeText = (user: string) => JSON.stringify(s.homeOf(user)?.view.blocks ?? []);
    const alices = await app.store.memory.remember({
      scope: 'me',
      subject: `slack:${ALICE}`,
      text: 'Alice works from Lisbon',
      createdBy: `slack:${ALICE}`,
    });
    await app.store.memory.remember({
      scope: 'channel',
      subject: `slack:${s.teamId}:${GENERAL}`,
      text: 'The channel deploys on Fridays',
      createdBy: `slack:${ALICE}`,
    });
    await app.store.memory.remember({
      scope: 'me',
      subject: `slack:${BOB}`,
      text: 'Bob works from Oslo',
      createdBy: `slack:${BOB}`,
    });

    await s.openHome(ALICE);
    await waitFor(() => homeText(ALICE).includes('What Errand remembers about you'), 10_000, "Alice's Home");
    expect(homeText(ALICE)).toContain(`#${alices.id} Alice works from Lisbon`);
    expect(homeText(ALICE)).not.toContain('Oslo');
    expect(homeText(ALICE)).not.toContain('deploys on Fridays');

    await replyTo(
      s,
      await s.slashCommand({ command: '/memory', text: `forget ${alices.id}`, user: ALICE, channel: GENERAL }),
    );
    await s.openHome(ALICE);
    await waitFor(() => !homeText(ALICE).includes('Lisbon'), 10_000, 'the Home without the forgotten memory');
    expect(homeText(ALICE)).toContain('Nothing yet.');
  });
});
