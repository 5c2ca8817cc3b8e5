import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DENIED_RESULT } from '../../src/agent/approval-decision.js';
import { parseActionId } from '../../src/chat/action-id.js';
import { nextSnowflake, type FakeMessage, type FakeUser } from '../fakes/fake-discord.js';
import { waitFor } from '../fakes/wait-for.js';
import { startDiscordErrand, until, type DiscordErrand } from './discord-harness.js';
import { count, startSharedFixtureServer, toolResults, writeStep, type SharedFixtureServer } from './mcp-e2e-kit.js';
import { expectArgumentsWholeAndFenced, fenceBreakingText, readPosts } from './approval-posts.js';

let server: SharedFixtureServer;
let e: DiscordErrand | null = null;
beforeAll(async () => {
  server = await startSharedFixtureServer();
});
afterAll(() => server.close());
afterEach(async () => {
  await e?.app.coordinator.idle();
  await e?.close();
  e = null;
});

const texts = (e: DiscordErrand, channelId: string) => e.discord.botMessagesIn(channelId).map((m) => m.content);
const buttonsOf = (m: FakeMessage) =>
  (m.components as { components: { custom_id: string; label: string }[] }[]).flatMap((row) => row.components);
const written = (text: string) => count(server.events(), `wrote plan=${text}`);

/** Alice asks in #general; the model answers by calling the writing MCP tool. Resolves with the thread and the approval post. */
async function askForApproval(
  text: string,
  after: string,
): Promise<{ e: DiscordErrand; thread: string; approval: FakeMessage }> {
  e = await startDiscordErrand({}, { externalTools: server.tools });
  e.model.reply(writeStep(text), { text: after });
  const msg = e.discord.userMessage(e.discord.general.id, `<@${e.discord.bot.id}> save the plan "${text}"`);
  const approval = await until(
    () =>
      e!.discord.botMessagesIn(msg.id).find((m) => m.content.includes('Approval needed') && m.components.length > 0),
    10_000,
  );
  await e.app.coordinator.idle();
  return { e, thread: msg.id, approval };
}

describe('MCP tools on Discord, end to end (real discord.js, real MCP hub on the stdio fixture)', () => {
  it('a read-only MCP tool runs without asking and its result reaches the next model request', async () => {
    e = await startDiscordErrand({}, { externalTools: server.tools });
    e.model.reply(
      { toolCalls: [{ name: 'notes__read_note', arguments: { key: 'shopping' } }] },
      { text: 'You need milk.' },
    );
    const msg = e.discord.userMessage(e.discord.general.id, `<@${e.discord.bot.id}> what is on my shopping note?`);
    await waitFor(() => texts(e!, msg.id).includes('You need milk.'), 10_000, 'the answer');
    expect(e.model.requests[0]!.tools.map((t) => t.function.name)).toEqual(
      expect.arrayContaining(['notes__read_note', 'notes__write_note']),
    );
    expect(toolResults(e.model.requests[1]!)).toEqual([{ ok: true, content: 'note shopping: buy milk' }]);
  });

  it('a writing tool asks first: three buttons, the requester clicks Allow once, the tool runs once and the post shows who chose what', async () => {
    const { e, thread, approval } = await askForApproval('click-once', 'Saved it.');
    expect(approval.content).toMatch(
      new RegExp(`^<@${e.discord.alice.id}> 🔐 \\*\\*Approval needed:\\*\\* I want to run \`notes__write_note\` with:`),
    );
    expect(buttonsOf(approval).map((b) => b.label)).toEqual(['Allow once', 'Always allow here', 'Deny']);
    expect(written('click-once')).toBe(0);

    const click = e.discord.clickButton(approval.id, buttonsOf(approval)[0]!.custom_id);
    await waitFor(() => texts(e, thread).includes('Saved it.'), 10_000, 'the answer after the approval');
    expect(written('click-once')).toBe(1);
    expect(toolResults(e.model.requests[1]!)).toEqual([{ ok: true, content: 'saved plan' }]);
    expect(click.callbacks.map((c) => c.type)).toEqual([7]);
    const shown = e.discord.messages.get(approval.id)!;
    expect(shown.content.endsWith(`✅ <@${e.discord.alice.id}> chose **Allow once**`)).toBe(true);
    expect(shown.components).toEqual([]);
  });

  it('arguments of 5 000 characters that try to close the code block are shown whole, fenced, over several posts; the buttons on the last still work', async () => {
    e = await startDiscordErrand({}, { externalTools: server.tools });
    const text = fenceBreakingText('discord');
    e.model.reply(writeStep(text), { text: 'Saved the long one.' });
    const msg = e.discord.userMessage(e.discord.general.id, `<@${e.discord.bot.id}> save the long plan`);
    const posts = () =>
      e!.discord
        .botMessagesIn(msg.id)
        .filter((m) => !m.content.startsWith('⏳ Working') && m.content !== 'Saved the long one.');
    const last = await until(() => posts().find((m) => m.components.length > 0), 10_000);
    await e.app.coordinator.idle();
    expect(posts().length).toBeGreaterThan(1);
    for (const post of posts()) expect(post.content.length).toBeLessThanOrEqual(2000);
    expect(posts().at(-1)!.id).toBe(last.id);
    expect(posts().filter((m) => m.components.length > 0)).toHaveLength(1);
    const alice = e.discord.alice.id;
    const prose = `<@${alice}> 🔐 **Approval needed:** I want to run \`notes__write_note\` with: Allow it? Reply **allow** (once), **always** (this tool in this conversation) or **deny**.`;
    expectArgumentsWholeAndFenced(
      readPosts(
        posts().map((m) => m.content),
        { language: true },
      ),
      { key: 'plan', text },
      prose,
    );

    e.discord.clickButton(last.id, buttonsOf(last)[0]!.custom_id);
    await waitFor(() => texts(e!, msg.id).includes('Saved the long one.'), 10_000, 'the answer after the approval');
    expect(written(text)).toBe(1);
    await waitFor(() => e!.discord.messages.get(last.id)!.components.length === 0, 5000, 'the buttons to go');
    expectArgumentsWholeAndFenced(
      readPosts(
        posts().map((m) => m.content),
        { language: true },
      ),
      { key: 'plan', text },
      `${prose} ✅ <@${alice}> chose **Allow once**`,
    );
  });

  it('a typed "allow" from the requester approves, and the post is edited to say so', async () => {
    const { e, thread, approval } = await askForApproval('typed', 'Saved the typed one.');
    e.discord.userMessage(thread, 'allow');
    await waitFor(() => texts(e, thread).includes('Saved the typed one.'), 10_000, 'the answer');
    expect(written('typed')).toBe(1);
    await waitFor(
      () => e.discord.messages.get(approval.id)!.content.endsWith(`✅ Allowed once by <@${e.discord.alice.id}>.`),
      5000,
      'the decision on the post',
    );
    expect(e.discord.messages.get(approval.id)!.components).toEqual([]);
  });

  it('Deny: the tool never runs and the model hears that the user denied it', async () => {
    const { e, thread, approval } = await askForApproval('denied', 'OK, not saving it.');
    e.discord.clickButton(approval.id, buttonsOf(approval)[2]!.custom_id);
    await waitFor(() => texts(e, thread).includes('OK, not saving it.'), 10_000, 'the answer');
    expect(toolResults(e.model.requests[1]!)).toEqual([DENIED_RESULT]);
    expect(written('denied')).toBe(0);
    expect(e.discord.messages.get(approval.id)!.content).toContain('chose **Deny**');
  });

  it('a click by someone else gets an ephemeral refusal and the run keeps waiting', async () => {
    const { e, thread, approval } = await askForApproval('bob-clicked', 'Saved after Alice allowed it.');
    const bob: FakeUser = { id: nextSnowflake(), username: 'bob' };
    e.discord.users.set(bob.id, bob);
    const click = e.discord.clickButton(approval.id, buttonsOf(approval)[0]!.custom_id, bob);
    await waitFor(() => click.responses.length === 1, 5000, 'the refusal');
    expect(click.responses[0]).toMatchObject({
      ephemeral: true,
      content: expect.stringContaining(`Only <@${e.discord.alice.id}>`),
    });
    expect(buttonsOf(e.discord.messages.get(approval.id)!)).toHaveLength(3);
    expect(written('bob-clicked')).toBe(0);
    const runId = parseActionId(buttonsOf(approval)[0]!.custom_id)!.runId;
    expect((await e.app.runs.get(runId))?.status).toBe('waiting_user');

    e.discord.clickButton(approval.id, buttonsOf(approval)[0]!.custom_id);
    await waitFor(() => texts(e, thread).includes('Saved after Alice allowed it.'), 10_000, 'the answer');
    expect(written('bob-clicked')).toBe(1);
  });

  it('nobody deciding within ASK_TIMEOUT_MINUTES counts as denied, and the post says so', async () => {
    const { e, thread, approval } = await askForApproval('timed-out', 'Nobody answered, so I did not save it.');
    e.clock.advance(1441 * 60_000);
    await e.app.heartbeat.tick();
    await waitFor(() => texts(e, thread).includes('Nobody answered, so I did not save it.'), 10_000, 'the answer');
    expect(toolResults(e.model.requests[1]!)).toEqual([
      { ok: false, error: expect.stringMatching(/^Nobody approved this tool call within 1440 minutes/) },
    ]);
    expect(written('timed-out')).toBe(0);
    await waitFor(
      () => e.discord.messages.get(approval.id)!.content.endsWith('⌛ Nobody decided in time: not run.'),
      5000,
      'the timeout on the post',
    );
  });

  it('the Stop button during a slow MCP call cancels it on the server and the run ends cancelled', async () => {
    e = await startDiscordErrand({}, { externalTools: server.tools });
    const before = server.events();
    e.model.reply({ toolCalls: [{ name: 'notes__slow', arguments: {} }] });
    const msg = e.discord.userMessage(e.discord.general.id, `<@${e.discord.bot.id}> do the slow thing`);
    await waitFor(
      () => count(server.events(), 'started slow') === count(before, 'started slow') + 1,
      10_000,
      'the slow tool to start',
    );
    const notice = await until(
      () => e!.discord.botMessagesIn(msg.id).find((m) => m.content.includes('Working') && m.components.length > 0),
      5000,
    );
    const stop = buttonsOf(notice)[0]!.custom_id;
    e.discord.clickButton(notice.id, stop);
    await waitFor(
      () => count(server.events(), 'cancelled slow') === count(before, 'cancelled slow') + 1,
      5000,
      'the server to see notifications/cancelled',
    );
    await waitFor(() => texts(e!, msg.id).some((t) => t.includes('Stopped')), 5000, 'the stop note');
    await waitFor(
      async () => (await e!.app.runs.get(parseActionId(stop)!.runId))?.status === 'cancelled',
      5000,
      'the run to be cancelled',
    );
    expect(e.model.requests).toHaveLength(1);
  });

  it('/stop in the thread during a slow MCP call cancels it on the server', async () => {
    e = await startDiscordErrand({}, { externalTools: server.tools });
    const before = server.events();
    e.model.reply({ toolCalls: [{ name: 'notes__slow', arguments: {} }] });
    const msg = e.discord.userMessage(e.discord.general.id, `<@${e.discord.bot.id}> do the slow thing again`);
    await waitFor(
      () => count(server.events(), 'started slow') === count(before, 'started slow') + 1,
      10_000,
      'the slow tool to start',
    );
    const command = e.discord.slashCommand('stop', msg.id);
    await waitFor(
      () => count(server.events(), 'cancelled slow') === count(before, 'cancelled slow') + 1,
      5000,
      'the server to see notifications/cancelled',
    );
    await waitFor(() => command.responses.some((r) => r.ephemeral && r.content.length > 0), 5000, 'the /stop reply');
    await waitFor(() => texts(e!, msg.id).some((t) => t.includes('Stopped')), 5000, 'the stop note');
    expect(e.model.requests).toHaveLength(1);
  });
});
