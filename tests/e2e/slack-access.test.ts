import { afterEach, describe, expect, it } from 'vitest';
import { parseActionId } from '../../src/chat/action-id.js';
import { waitFor } from '../fakes/wait-for.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { ExternalToolsFixture } from '../integration/external-tools-fixture.js';
import { buttonsOf, startErrand, texts, type Errand } from './slack-harness.js';

const GENERAL = 'C0GENERAL';
const RANDOM = 'C0RANDOM01';
const ALICE = 'U0ALICE01';
const BOB = 'U0BOB0001';
const MALLORY = 'U0MALLORY1';
const ADMIN = 'U0ADMIN01';

let e: Errand | null = null;
afterEach(async () => {
  await e?.app.coordinator.idle();
  await e?.close();
  e = null;
});

async function start(access: Record<string, unknown>, tools?: ExternalToolsFixture): Promise<Errand> {
  e = await startErrand({ env: errandFileEnv({ access }), ...(tools ? { externalTools: tools.source } : {}) });
  return e;
}

/** The answer Bolt sent in the slash command's acknowledgement. */
const commandReply = async (s: Errand['slack'], line: string, user: string, channel = GENERAL) => {
  const [command = '', ...args] = line.split(' ');
  const r = await s.slashCommand({ command, text: args.join(' '), user, channel });
  expect(r.status).toBe(200);
  return JSON.parse(r.body) as { response_type: string; text: string };
};

/** The private answer to a click, posted through its response_url. */
const clickReply = async (s: Errand['slack'], click: { responseId: string }) =>
  (await waitFor(() => s.responses.find((r) => r.id === click.responseId), 5000, 'the private answer to the click'))!
    .body;

const ALLOWED = { users: [`slack:${ALICE}`, `slack:${BOB}`], admins: [`slack:${ADMIN}`] };
const askStep = {
  toolCalls: [{ name: 'ask_user', arguments: { question: 'Which format?', options: ['PDF', 'Markdown'] } }],
};

describe('access rules on Slack, end to end (real Bolt against the fake Slack)', () => {
  it('someone not on the users list gets one ephemeral explanation for both twins and a redelivery: no model request, no task, no post', async () => {
    const { slack: s, model, app } = await start(ALLOWED);
    const { ts } = await s.mention({ user: MALLORY, channel: GENERAL, text: 'do my homework', order: 'together' });
    const last = s.deliveries.at(-1)!;
    const redelivery = await s.sendEvent(last.event, { eventId: last.eventId, retryNum: 1 });
    expect(redelivery.status).toBe(200);
    const refusal = await waitFor(() => s.ephemerals.find((x) => x.user === MALLORY), 5000, 'the refusal');
    expect(refusal).toMatchObject({
      channel: GENERAL,
      thread_ts: ts,
      text: expect.stringMatching(/not on the list of people who can use Errand here/),
    });

    // A listed person's request afterwards is answered, which shows the refused events were all handled.
    model.reply({ text: 'Hello Alice.' });
    const alice = await s.mention({ user: ALICE, channel: GENERAL, text: 'hello' });
    await waitFor(() => texts(s, alice.ts).includes('Hello Alice.'), 10_000, 'the answer to Alice');
    await s.settle();
    expect(s.ephemerals).toHaveLength(1);
    expect(model.requests).toHaveLength(1);
    expect(JSON.stringify(model.requests[0]!.messages)).not.toContain('homework');
    expect(texts(s, ts)).toEqual([]);
    expect((await app.tasks.get(1))?.requestedBy).toBe(ALICE);
    expect(await app.tasks.get(2)).toBeNull();
  });

  it('a channel not in channels is refused; a listed channel is answered', async () => {
    const { slack: s, model } = await start({ channels: [`slack:${GENERAL}`] });
    model.reply({ text: 'Answered in general.' });
    const elsewhere = await s.mention({ user: ALICE, channel: RANDOM, text: 'hello' });
    const refusal = await waitFor(() => s.ephemerals.find((x) => x.user === ALICE), 5000, 'the refusal');
    expect(refusal).toMatchObject({ channel: RANDOM, text: expect.stringMatching(/isn't enabled in this channel/) });
    const here = await s.mention({ user: ALICE, channel: GENERAL, text: 'hello' });
    await waitFor(() => texts(s, here.ts).includes('Answered in general.'), 10_000, 'the answer');
    expect(texts(s, elsewhere.ts, RANDOM)).toEqual([]);
    expect(model.requests).toHaveLength(1);
  });

  it('directMessages "off" refuses DMs (admins excepted); "allowlist" takes only listed people', async () => {
    let { slack: s, model } = await start({ directMessages: 'off', admins: [`slack:${ADMIN}`] });
    model.reply({ text: 'Hello admin.' });
    await s.userMessage({ user: ALICE, channel: 'D0ALICE01', text: 'psst' });
    const off = await waitFor(() => s.ephemerals.find((x) => x.user === ALICE), 5000, 'the DM refusal');
    expect(off).toMatchObject({ channel: 'D0ALICE01', text: expect.stringMatching(/doesn't take direct messages/) });
    await s.userMessage({ user: ADMIN, channel: 'D0ADMIN01', text: 'psst' });
    await waitFor(() => s.botTexts('D0ADMIN01', null).includes('Hello admin.'), 10_000, 'the admin answered');
    expect(s.botTexts('D0ALICE01', null)).toEqual([]);
    await e!.close();

    ({ slack: s, model } = e = await startErrand({
      env: errandFileEnv({ access: { directMessages: 'allowlist', users: [`slack:${ALICE}`] } }),
    }));
    model.reply({ text: 'Hello Alice.' });
    await s.userMessage({ user: BOB, channel: 'D0BOB00001', text: 'psst' });
    const allowlist = await waitFor(() => s.ephemerals.find((x) => x.user === BOB), 5000, 'the allowlist refusal');
    expect(allowlist).toMatchObject({
      channel: 'D0BOB00001',
      text: expect.stringMatching(/direct messages with Errand are limited to listed people/),
    });
    await s.userMessage({ user: ALICE, channel: 'D0ALICE01', text: 'psst' });
    await waitFor(() => s.botTexts('D0ALICE01', null).includes('Hello Alice.'), 10_000, 'Alice answered');
    expect(model.requests).toHaveLength(1);
  });

  it('/tasks from a refused person is answered with an ephemeral refusal; a listed person gets the list', async () => {
    const { slack: s } = await start(ALLOWED);
    const refused = await commandReply(s, '/tasks', MALLORY);
    expect(refused).toEqual({
      response_type: 'ephemeral',
      text: expect.stringMatching(/not on the list of people who can use Errand here/),
    });
    const listed = await commandReply(s, '/tasks', ALICE);
    expect(listed.response_type).toBe('ephemeral');
    expect(listed.text).not.toMatch(/not on the list/);
  });

  it("Stop from someone else (button, typed, /stop) is refused privately and the run goes on; an admin's Stop stops it", async () => {
    const { slack: s, model, app } = await start(ALLOWED);
    model.reply({ hang: true });
    const { ts } = await s.mention({ user: ALICE, channel: GENERAL, text: 'a long job' });
    const notice = (await waitFor(
      () => s.messages(GENERAL, ts).find((m) => m.text.includes('Working')),
      10_000,
      'the working notice',
    ))!;
    const stop = buttonsOf(notice)[0]!.action_id;

    const bob = await s.click({ user: BOB, channel: GENERAL, messageTs: notice.ts, actionId: stop });
    expect(bob.status).toBe(200);
    expect(await clickReply(s, bob)).toMatchObject({
      response_type: 'ephemeral',
      text: 'Only the person who asked for this work, or an admin, can stop it.',
    });
    expect(model.requests[0]!.aborted).toBe(false);
    await s.userMessage({ user: BOB, channel: GENERAL, text: 'stop', threadTs: ts });
    const typed = await waitFor(() => s.ephemerals.find((x) => x.user === BOB), 5000, 'the refusal of a typed stop');
    expect(typed).toMatchObject({
      channel: GENERAL,
      thread_ts: ts,
      text: 'Only the person who asked for this work, or an admin, can stop it.',
    });
    expect((await commandReply(s, '/stop', BOB)).text).toBe(
      'Only the person who asked for this work, or an admin, can stop it.',
    );
    expect(model.requests[0]!.aborted).toBe(false);
    expect((await app.runs.get(parseActionId(stop)!.runId))?.status).toBe('running');

    await s.click({ user: ADMIN, channel: GENERAL, messageTs: notice.ts, actionId: stop });
    await waitFor(() => texts(s, ts).some((t) => t.includes('Stopped')), 10_000, 'the stop note');
    await waitFor(() => model.requests[0]!.aborted, 5000, 'the model request to be aborted');
  });

  it("someone else's `stop all` or `/stop all` does not cancel another person's queued to-do", async () => {
    e = await startErrand({ env: { ...errandFileEnv({ access: ALLOWED }), MAX_CONCURRENT_RUNS: '1' } });
    const { slack: s, model, app } = e;
    model.reply({ hang: true }, { text: 'Done for Alice.' });
    const bobs = await s.mention({ user: BOB, channel: GENERAL, text: 'a long job' });
    await waitFor(() => model.requests.length === 1, 10_000, "Bob's run");
    const alices = await s.mention({ user: ALICE, channel: GENERAL, text: 'my report' });
    // Held back only by the run limit: the note comes once the wait has lasted a while (Errand's clock).
    await waitFor(
      () => {
        e!.clock.advance(250);
        return texts(s, alices.ts).some((t) => t.startsWith('📝 Queued as task #2'));
      },
      10_000,
      "Alice's queued note",
    );

    await s.userMessage({ user: BOB, channel: GENERAL, text: 'stop all', threadTs: alices.ts });
    const typed = await waitFor(
      () => s.ephemerals.find((x) => x.user === BOB && x.thread_ts === alices.ts),
      5000,
      'the refusal of a typed stop all',
    );
    expect(typed!.text).toMatch(/^Only the person who asked for this work, or an admin, can stop it\./);
    expect((await app.tasks.get(2))?.status).toBe('pending');
    expect((await commandReply(s, '/stop all', BOB)).text).toBe('Done: stopped 1 run.');
    await waitFor(() => texts(s, bobs.ts).some((t) => t.includes('Stopped')), 10_000, "Bob's stop note");
    await waitFor(() => texts(s, alices.ts).includes('Done for Alice.'), 10_000, "Alice's to-do, still there, runs");
    await waitFor(async () => (await app.tasks.get(2))?.status === 'completed', 10_000, "Alice's to-do done");
  });

  it('a tool approval clicked by someone other than the requester is refused; an admin allows it and the tool runs', async () => {
    const tools = new ExternalToolsFixture();
    const { slack: s, model } = await start(ALLOWED, tools);
    model.reply(
      { toolCalls: [{ name: 'tracker__create_issue', arguments: { title: 'Broken login' } }] },
      { text: 'Filed it.' },
    );
    const { ts } = await s.mention({ user: ALICE, channel: GENERAL, text: 'file an issue about the login' });
    const approval = (await waitFor(
      () => s.messages(GENERAL, ts).find((m) => m.text.includes('Approval needed')),
      10_000,
      'the approval post',
    ))!;
    await e!.app.coordinator.idle();
    const allowOnce = buttonsOf(approval)[0]!.action_id;

    const bob = await s.click({ user: BOB, channel: GENERAL, messageTs: approval.ts, actionId: allowOnce });
    expect(await clickReply(s, bob)).toMatchObject({
      response_type: 'ephemeral',
      text: `Only <@${ALICE}> (who asked for this) or an admin can allow or deny this tool call.`,
    });
    expect(tools.calls).toHaveLength(0);
    expect(model.requests).toHaveLength(1);

    await s.click({ user: ADMIN, channel: GENERAL, messageTs: approval.ts, actionId: allowOnce });
    await waitFor(() => texts(s, ts).includes('Filed it.'), 10_000, 'the answer after approval');
    expect(tools.calls).toEqual([{ name: 'tracker__create_issue', args: { title: 'Broken login' } }]);
  });

  it("an ask_user question answered by someone else becomes a queued to-do; the asker's answer resumes the run", async () => {
    const { slack: s, model, app } = await start(ALLOWED);
    model.reply(askStep, { text: 'PDF it is.' }, { text: 'Bob gets Markdown.' });
    const { ts } = await s.mention({ user: ALICE, channel: GENERAL, text: 'write the report' });
    await waitFor(() => s.messages(GENERAL, ts).some((m) => m.text.includes('Which format?')), 10_000, 'the question');
    await app.coordinator.idle();

    await s.userMessage({ user: BOB, channel: GENERAL, text: 'Markdown!', threadTs: ts });
    await waitFor(() => texts(s, ts).some((t) => t.startsWith('📝 Queued as task #2')), 10_000, 'the queued note');
    expect(await app.tasks.get(2)).toMatchObject({ requestedBy: BOB, status: 'pending' });
    expect(model.requests).toHaveLength(1);

    await s.userMessage({ user: ALICE, channel: GENERAL, text: 'PDF', threadTs: ts });
    await waitFor(() => texts(s, ts).includes('PDF it is.'), 10_000, 'the resumed run');
    expect(JSON.stringify(model.requests[1]!.messages)).toContain('PDF');
    await waitFor(() => texts(s, ts).includes('Bob gets Markdown.'), 10_000, "Bob's to-do");
  });
});
