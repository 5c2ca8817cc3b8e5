import { afterEach, describe, expect, it } from 'vitest';
import { disconnectActionId } from '../../src/chat/home-connections.js';
import { startFakeOAuth, type FakeOAuth, type FakeOAuthOptions } from '../fakes/fake-oauth.js';
import { waitFor } from '../fakes/wait-for.js';
import { lastUserText } from '../fakes/fake-openai.js';
import { freePort, startOnFreePort } from '../support/free-port.js';
import { linearEnv } from './linear-oauth-env.js';
import { toolResults } from './mcp-e2e-kit.js';
import { startErrand, texts, type Errand } from './slack-harness.js';
import { startRestartableSlackErrand, type RestartableSlackErrand } from './slack-restart-harness.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';
const BOB = 'U0BOB0001';

let e: Errand | null = null;
let fake: FakeOAuth | null = null;
let restartable: RestartableSlackErrand | null = null;
afterEach(async () => {
  await restartable?.close();
  restartable = null;
  await e?.app.coordinator.idle();
  await e?.close();
  await fake?.close();
  e = null;
  fake = null;
});

/**
 * `linear`'s results are marked public here: sign-in is the subject, so answers are posted in the thread at once (what
 * stays private by default is tests/e2e/slack-private-thread.test.ts's).
 */
const linearEnvPublic = (f: FakeOAuth, port: number) => linearEnv(f, port, 'public');

/** Errand on the Slack fake with the `linear` OAuth server. */
async function startWithLinear(options: FakeOAuthOptions = {}): Promise<{ e: Errand; fake: FakeOAuth }> {
  const f = (fake = await startFakeOAuth(options));
  // WEB_PORT is named before the start (PUBLIC_URL holds it): another process may take it meanwhile.
  e = await startOnFreePort((port) => {
    const { env, hub } = linearEnvPublic(f, port);
    return startErrand({ externalTools: hub(), env });
  });
  return { e, fake: f };
}

/** What `/connections` (with `text`) answers `user`, as Slack shows the ephemeral reply. */
async function connections(e: Errand, user: string, text = ''): Promise<string> {
  const r = await e.slack.slashCommand({ command: '/connections', text, user, channel: CHANNEL });
  expect(r.status).toBe(200);
  return (JSON.parse(r.body) as { text: string }).text;
}

/** The run of the thread rooted at `ts`, if one is active. */
async function activeRun(e: Errand, ts: string) {
  const conv = await e.app.conversations.ensure({
    platform: 'slack',
    workspace: e.slack.teamId,
    channel: CHANNEL,
    thread: ts,
  });
  return e.app.runs.active(conv);
}

/** The Connect link of the newest private notice to `user`. */
function connectLink(e: Pick<Errand, 'slack'>, user: string): string | null {
  const notice = e.slack.ephemerals.filter((n) => n.user === user && n.text.includes('connect your account')).at(-1);
  return notice?.text.match(/https?:\/\/[^\s>|]+/)?.[0]?.replaceAll('&amp;', '&') ?? null;
}

describe('per-person OAuth for MCP servers on Slack (real Bolt, fake authorization server, protected MCP server)', () => {
  it('the call waits for A to connect (private link, run waiting_user); the callback resumes it with her token; B in the same thread waits for his own', async () => {
    const { e, fake } = await startWithLinear();
    // 1. Alice has no connection: the call does not reach the server, she is told privately, and the run waits.
    e.model.reply(
      { toolCalls: [{ name: 'linear__sign_in', arguments: {} }] },
      { toolCalls: [{ name: 'linear__whoami', arguments: {} }] },
      { text: 'You are ana.' },
    );
    const { ts } = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'what is on my linear board?' });
    const link = (await waitFor(() => connectLink(e, ALICE), 10_000, "Alice's Connect notice"))!;
    await waitFor(
      () => texts(e.slack, ts).some((t) => t.includes('Waiting for you to connect') && t.includes(`<@${ALICE}>`)),
      10_000,
      'the waiting note in the thread',
    );
    expect(e.model.requests[0]!.tools.map((t) => t.function.name)).toContain('linear__sign_in');
    expect(e.model.requests).toHaveLength(1);
    expect(await activeRun(e, ts)).toMatchObject({
      status: 'waiting_user',
      question: { signIn: { server: 'linear' }, userId: ALICE },
    });
    const notice = e.slack.ephemerals.find((n) => n.user === ALICE)!;
    expect(notice.text).toContain('To use');
    expect(notice.thread_ts).toBe(ts);
    expect(new URL(link).origin).toBe(fake.issuer);
    expect(fake.accepted).toEqual([]);
    expect(e.slack.ephemerals.filter((n) => n.user === BOB)).toEqual([]);
    // The link is in no public message.
    expect(texts(e.slack, ts).some((t) => t.includes(fake.issuer))).toBe(false);

    // 2. Alice signs in as a browser would; the waiting call then runs with her token and the run goes on by itself.
    const back = await fake.consent(link, { subject: 'ana' });
    const page = await fetch(back);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Connected');
    await waitFor(() => texts(e.slack, ts).includes('You are ana.'), 10_000, 'the answer with her token');
    const done = e.slack.ephemerals.find((n) => n.user === ALICE && n.text.startsWith('Connected'))!;
    expect(done.thread_ts).toBe(ts);
    expect(done.text).toContain('carrying on');
    expect(toolResults(e.model.requests[1]!).at(-1)).toEqual(expect.objectContaining({ ok: true, connected: true }));
    expect(e.model.requests[1]!.tools.map((t) => t.function.name)).toEqual(
      expect.arrayContaining(['linear__whoami', 'linear__write_note']),
    );
    expect(toolResults(e.model.requests[2]!).at(-1)).toEqual({ ok: true, content: 'ana' });
    expect(new Set(fake.accepted.map((a) => a.subject))).toEqual(new Set(['ana']));
    // The thread's waiting post says the wait is over.
    await waitFor(
      () =>
        texts(e.slack, ts).some(
          (t) => t.includes('Waiting for you to connect') && t.includes('Connected — carrying on.'),
        ),
      10_000,
      'the waiting post edited',
    );
    const anasCalls = fake.accepted.length;
    await e.app.coordinator.idle();

    // 3. Bob writes in the same thread: his run acts for him, he has no connection, so it waits for HIS sign-in.
    e.model.reply({ toolCalls: [{ name: 'linear__whoami', arguments: {} }] }, { text: 'You are ben.' });
    const beforeBob = e.model.requests.length;
    await e.slack.userMessage({
      user: BOB,
      channel: CHANNEL,
      text: `<@${e.slack.botUserId}> and who am I?`,
      threadTs: ts,
    });
    const bobsLink = (await waitFor(() => connectLink(e, BOB), 10_000, "Bob's Connect notice"))!;
    await waitFor(async () => (await activeRun(e, ts))?.status === 'waiting_user', 10_000, "Bob's run to wait");
    expect(e.model.requests).toHaveLength(beforeBob + 1);
    expect(fake.accepted).toHaveLength(anasCalls);
    expect((await fetch(await fake.consent(bobsLink, { subject: 'ben' }))).status).toBe(200);
    await waitFor(() => texts(e.slack, ts).includes('You are ben.'), 10_000, "Bob's answer with his token");
    expect(toolResults(e.model.requests[beforeBob + 1]!).at(-1)).toEqual({ ok: true, content: 'ben' });
    expect(fake.accepted.slice(anasCalls).every((a) => a.subject === 'ben')).toBe(true);
    await e.app.coordinator.idle();

    // 4. /connections lists hers (never a token), not Bob's; disconnect removes it and her next call waits again.
    const listed = await connections(e, ALICE);
    expect(listed).toContain('linear');
    expect(listed).toMatch(/since \d{4}-\d{2}-\d{2}/);
    for (const t of fake.issued) expect(listed).not.toContain(t.accessToken);
    expect(await connections(e, BOB)).toContain('*linear* as ben');
    expect(await connections(e, ALICE, 'disconnect linear')).toContain('Disconnected');
    expect(await connections(e, ALICE)).toContain('You have not connected any MCP server yet.');
    e.model.reply({ toolCalls: [{ name: 'linear__whoami', arguments: {} }] });
    const noticesBefore = e.slack.ephemerals.filter(
      (n) => n.user === ALICE && n.text.includes('connect your account'),
    ).length;
    await e.slack.userMessage({ user: ALICE, channel: CHANNEL, text: 'who am I now?', threadTs: ts });
    await waitFor(
      () =>
        e.slack.ephemerals.filter((n) => n.user === ALICE && n.text.includes('connect your account')).length >
        noticesBefore,
      10_000,
      'a new Connect notice',
    );
    await waitFor(async () => (await activeRun(e, ts))?.status === 'waiting_user', 10_000, 'her run to wait again');
    // No token in any model request.
    const sent = JSON.stringify(e.model.requests);
    for (const t of fake.issued) expect(sent).not.toContain(t.accessToken);
  });

  it("a Connect link whose random parts hold Markdown's emphasis marks (client id dcr__linear__client) reaches Slack whole and connects", async () => {
    // Seen once in a whole-suite run as "unknown client or redirect_uri": the random client id, state or code challenge
    // (base64url) hold `__` about once in 1300 links, and the notice's conversion to mrkdwn made `__x__` bold.
    const { e, fake } = await startWithLinear({ clientIdOf: () => 'dcr__linear__client' });
    e.model.reply({ toolCalls: [{ name: 'linear__sign_in', arguments: {} }] }, { text: 'Connected.' });
    const { ts } = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'connect linear' });
    const link = (await waitFor(() => connectLink(e, ALICE), 10_000, 'the Connect notice'))!;
    expect(new URL(link).searchParams.get('client_id')).toBe('dcr__linear__client');
    expect((await fetch(await fake.consent(link, { subject: 'ana' }))).status).toBe(200);
    await waitFor(() => texts(e.slack, ts).includes('Connected.'), 10_000, 'the answer');
  });

  it('one sign-in resumes every run of the person waiting on that server, not only the run its link was made for; the callback page names the person and the server', async () => {
    const { e, fake } = await startWithLinear();
    e.model.respondWith((req) =>
      req.messages.some((m) => m.role === 'tool' && String(m.content).includes('"connected":true'))
        ? { text: `Done: ${lastUserText(req).replace(/<@\w+>\s*/, '')}` }
        : { toolCalls: [{ name: 'linear__sign_in', arguments: {} }] },
    );
    const one = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'board one' });
    const firstLink = (await waitFor(() => connectLink(e, ALICE), 10_000, 'the first Connect notice'))!;
    await waitFor(async () => (await activeRun(e, one.ts))?.status === 'waiting_user', 10_000, 'the first run to wait');
    const two = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'board two' });
    await waitFor(
      () => e.slack.ephemerals.filter((n) => n.user === ALICE && n.text.includes('connect your account')).length === 2,
      10_000,
      'the second Connect notice',
    );
    await waitFor(
      async () => (await activeRun(e, two.ts))?.status === 'waiting_user',
      10_000,
      'the second run to wait',
    );

    // She opens the first link only: both runs go on with her new connection.
    const page = await fetch(await fake.consent(firstLink, { subject: 'ana' }));
    const html = await page.text();
    expect(html).toContain('linear');
    expect(html).toContain(`for the Slack user ${ALICE}`);
    await waitFor(() => texts(e.slack, one.ts).includes('Done: board one'), 10_000, 'the first run to finish');
    await waitFor(() => texts(e.slack, two.ts).includes('Done: board two'), 10_000, 'the second run to finish too');
    expect(
      e.slack.ephemerals
        .filter((n) => n.user === ALICE && n.text.startsWith('Connected'))
        .map((n) => n.thread_ts)
        .sort(),
    ).toEqual([one.ts, two.ts].sort());
  });

  it('a person who never connects: after ASK_TIMEOUT_MINUTES the model is told "<person> has not connected linear"', async () => {
    const { e, fake } = await startWithLinear();
    e.model.reply({ toolCalls: [{ name: 'linear__sign_in', arguments: {} }] }, { text: 'Going on without linear.' });
    const { ts } = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'check linear' });
    await waitFor(() => connectLink(e, ALICE), 10_000, 'the Connect notice');
    await waitFor(async () => (await activeRun(e, ts))?.status === 'waiting_user', 10_000, 'the run to wait');
    await waitFor(async () => (await activeRun(e, ts))?.question?.messageId, 10_000, 'the waiting post');
    // Not yet: a minute short of the timeout, the heartbeat leaves it waiting.
    e.clock.advance(24 * 60 * 60_000 - 60_000);
    await e.app.heartbeat.tick();
    expect((await activeRun(e, ts))?.status).toBe('waiting_user');
    e.clock.advance(2 * 60_000);
    await e.app.heartbeat.tick();
    await waitFor(
      () => texts(e.slack, ts).includes('Going on without linear.'),
      10_000,
      'the answer after the timeout',
    );
    await waitFor(
      () => texts(e.slack, ts).some((t) => t.includes('Not connected in time')),
      5000,
      'the waiting post edited',
    );
    expect(toolResults(e.model.requests[1]!).at(-1)).toEqual({
      ok: false,
      error: expect.stringContaining(`${ALICE} has not connected linear`),
    });
    expect(fake.accepted).toEqual([]);
  });

  it("a reply in the thread by the person instead of connecting ends the wait: the model reads it; someone else's message is queued", async () => {
    const { e } = await startWithLinear();
    e.model.reply(
      { toolCalls: [{ name: 'linear__sign_in', arguments: {} }] },
      { text: 'Fine, without linear.' },
      { text: "Bob's request answered." },
    );
    const { ts } = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'check linear' });
    await waitFor(async () => (await activeRun(e, ts))?.status === 'waiting_user', 10_000, 'the run to wait');
    await e.slack.userMessage({
      user: BOB,
      channel: CHANNEL,
      text: `<@${e.slack.botUserId}> something else`,
      threadTs: ts,
    });
    await waitFor(
      () => texts(e.slack, ts).some((t) => t.startsWith('📝 Queued as task')),
      10_000,
      "Bob's message queued",
    );
    expect((await activeRun(e, ts))?.status).toBe('waiting_user');
    await e.slack.userMessage({ user: ALICE, channel: CHANNEL, text: 'skip linear for now', threadTs: ts });
    await waitFor(() => texts(e.slack, ts).includes('Fine, without linear.'), 10_000, 'the answer');
    expect(toolResults(e.model.requests[1]!).at(-1)).toEqual({
      ok: false,
      error: expect.stringContaining(
        `${ALICE} has not connected linear, so linear__sign_in was not run; instead they wrote: "skip linear for now"`,
      ),
    });
  });

  it('a stop ends the wait: the run is cancelled, and a later sign-in only connects (nothing resumes)', async () => {
    const { e, fake } = await startWithLinear();
    e.model.reply({ toolCalls: [{ name: 'linear__sign_in', arguments: {} }] }, { text: 'must not be said' });
    const { ts } = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'check linear' });
    const link = (await waitFor(() => connectLink(e, ALICE), 10_000, 'the Connect notice'))!;
    await waitFor(async () => (await activeRun(e, ts))?.status === 'waiting_user', 10_000, 'the run to wait');
    const run = (await activeRun(e, ts))!;
    await e.slack.userMessage({ user: ALICE, channel: CHANNEL, text: 'stop', threadTs: ts });
    await waitFor(async () => (await e.app.runs.get(run.id))?.status === 'cancelled', 5000, 'the run to be cancelled');
    expect((await fetch(await fake.consent(link, { subject: 'ana' }))).status).toBe(200);
    await waitFor(
      () => e.slack.ephemerals.find((n) => n.user === ALICE && n.text.startsWith('Connected')),
      10_000,
      'the Connected note',
    );
    expect(e.slack.ephemerals.find((n) => n.user === ALICE && n.text.startsWith('Connected'))!.text).toContain(
      'ask me again',
    );
    await e.app.coordinator.idle();
    expect(e.model.requests).toHaveLength(1);
    expect((await e.app.runs.get(run.id))?.status).toBe('cancelled');
    expect(await connections(e, ALICE)).toContain('linear');
  });

  it("a restart during the wait: the run still waits after it, and the callback to the new process runs the waiting call (the server's own tool, unknown to the new process until then)", async () => {
    fake = await startFakeOAuth();
    const f = fake;
    const { env, hub } = linearEnvPublic(f, await freePort());
    const r = (restartable = await startRestartableSlackErrand({ env, externalTools: hub }));
    const conversationOf = (ts: string) =>
      r.app().conversations.ensure({ platform: 'slack', workspace: r.slack.teamId, channel: CHANNEL, thread: ts });
    // Alice connects once (the tools of linear become known), then disconnects.
    r.model.reply({ toolCalls: [{ name: 'linear__sign_in', arguments: {} }] }, { text: 'Connected.' });
    const first = await r.slack.mention({ user: ALICE, channel: CHANNEL, text: 'connect linear' });
    expect(
      (
        await fetch(
          await f.consent((await waitFor(() => connectLink(r, ALICE), 10_000, 'the Connect notice'))!, {
            subject: 'ana',
          }),
        )
      ).status,
    ).toBe(200);
    await waitFor(() => texts(r.slack, first.ts).includes('Connected.'), 10_000, 'the first answer');
    await r.app().coordinator.idle();
    const disconnect = await r.slack.slashCommand({
      command: '/connections',
      text: 'disconnect linear',
      user: ALICE,
      channel: CHANNEL,
    });
    expect((JSON.parse(disconnect.body) as { text: string }).text).toContain('Disconnected');

    // Her next request calls linear__whoami itself: it waits for her to connect again.
    r.model.reply({ toolCalls: [{ name: 'linear__whoami', arguments: {} }] }, { text: 'You are ana.' });
    const before = r.model.requests.length;
    const noticesBefore = r.slack.ephemerals.filter(
      (n) => n.user === ALICE && n.text.includes('connect your account'),
    ).length;
    const { ts } = await r.slack.mention({ user: ALICE, channel: CHANNEL, text: 'who am I in linear?' });
    await waitFor(
      () =>
        r.slack.ephemerals.filter((n) => n.user === ALICE && n.text.includes('connect your account')).length >
        noticesBefore,
      10_000,
      'the new Connect notice',
    );
    const link = connectLink(r, ALICE)!;
    await waitFor(
      async () => (await r.app().runs.active(await conversationOf(ts)))?.status === 'waiting_user',
      10_000,
      'the run to wait',
    );
    await r.app().coordinator.idle();
    await r.stop();
    await r.start();
    expect(await r.app().runs.active(await conversationOf(ts))).toMatchObject({
      status: 'waiting_user',
      question: { signIn: { server: 'linear', call: { name: 'linear__whoami' } } },
    });
    expect((await fetch(await f.consent(link, { subject: 'ana' }))).status).toBe(200);
    await waitFor(() => texts(r.slack, ts).includes('You are ana.'), 10_000, 'the answer after the restart');
    expect(toolResults(r.model.requests[before + 1]!).at(-1)).toEqual({ ok: true, content: 'ana' });
    expect(r.model.requests).toHaveLength(before + 2);
  });

  it("a scheduled prompt's run uses its creator's connection, though nobody writes in its thread; an unconnected creator is asked and the run waits", async () => {
    const { e, fake } = await startWithLinear();
    // Alice connects (her first run waits for it and goes on).
    e.model.reply({ toolCalls: [{ name: 'linear__sign_in', arguments: {} }] }, { text: 'Connected, thanks.' });
    const first = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'check linear' });
    const link = (await waitFor(() => connectLink(e, ALICE), 10_000, 'the Connect notice'))!;
    expect((await fetch(await fake.consent(link, { subject: 'ana' }))).status).toBe(200);
    await waitFor(() => texts(e.slack, first.ts).includes('Connected, thanks.'), 10_000, 'the first answer');
    await e.app.coordinator.idle();
    // Bob, who has no connection, asks for a scheduled prompt: its runs act for him. Alice asks for one too.
    const at = new Date(e.clock.now() + 60 * 60_000).toISOString();
    const schedule = (prompt: string) => ({
      toolCalls: [{ name: 'schedule_prompt', arguments: { prompt, kind: 'once', spec: at, timezone: 'UTC' } }],
    });
    e.model.reply(schedule("report alice's board"), { text: 'Scheduled for Alice.' });
    const a = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'in an hour, report my board' });
    await waitFor(() => texts(e.slack, a.ts).includes('Scheduled for Alice.'), 10_000, "Alice's schedule");
    e.model.reply(schedule("report bob's board"), { text: 'Scheduled for Bob.' });
    const b = await e.slack.mention({ user: BOB, channel: CHANNEL, text: 'in an hour, report my board' });
    await waitFor(() => texts(e.slack, b.ts).includes('Scheduled for Bob.'), 10_000, "Bob's schedule");
    await e.app.coordinator.idle();

    // When they fire, each run calls linear as the person who scheduled it.
    e.model.respondWith((request) => {
      const goal = JSON.stringify(request.messages);
      const last = toolResults(request).at(-1) as { ok?: boolean } | undefined;
      if (last === undefined) return { toolCalls: [{ name: 'linear__whoami', arguments: {} }] };
      return { text: goal.includes("alice's board") ? 'Alice report done.' : 'Bob report done.' };
    });
    const before = e.model.requests.length;
    e.clock.advance(60 * 60_000 + 1000);
    await waitFor(
      () =>
        e.slack
          .messages(CHANNEL, null)
          .filter((m) => m.user === e.slack.botUserId && m.text.includes('Scheduled prompt')).length === 2,
      10_000,
      'both scheduled posts',
    );
    // Bob, the creator, is the one told to connect; his run waits; Alice's run answers with her token.
    const bobsLink = (await waitFor(() => connectLink(e, BOB), 10_000, "Bob's Connect notice"))!;
    await waitFor(() => e.model.requests.length >= before + 3, 10_000, "Alice's run to answer and Bob's to ask");
    await waitFor(
      () => e.slack.messages(CHANNEL).some((m) => m.text.includes('Alice report done.')),
      10_000,
      "Alice's report",
    );
    const last = (who: string) =>
      e.model.requests
        .slice(before)
        .filter((r) => JSON.stringify(r.messages).includes(`report ${who}'s board`))
        .map((r) => toolResults(r).at(-1))
        .at(-1);
    expect(last('alice')).toEqual({ ok: true, content: 'ana' });
    expect(new Set(fake.accepted.map((x) => x.subject))).toEqual(new Set(['ana']));
    // Bob connects: his scheduled run goes on with his token.
    expect((await fetch(await fake.consent(bobsLink, { subject: 'ben' }))).status).toBe(200);
    await waitFor(
      () => e.slack.messages(CHANNEL).some((m) => m.text.includes('Bob report done.')),
      10_000,
      "Bob's report",
    );
    expect(last('bob')).toEqual({ ok: true, content: 'ben' });
  });

  it('a 403 insufficient_scope waits too: the person is asked to sign in again with the wider scope, and the call then runs', async () => {
    const { e, fake } = await startWithLinear({ scopesSupported: ['read', 'write'] });
    e.model.reply({ toolCalls: [{ name: 'linear__sign_in', arguments: {} }] }, { text: 'Connected.' });
    const first = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'connect linear' });
    expect(
      (
        await fetch(
          await fake.consent((await waitFor(() => connectLink(e, ALICE), 10_000, 'the Connect notice'))!, {
            subject: 'ana',
          }),
        )
      ).status,
    ).toBe(200);
    await waitFor(() => texts(e.slack, first.ts).includes('Connected.'), 10_000, 'the first answer');
    await e.app.coordinator.idle();
    fake.requireScope('write_note', 'admin');

    e.model.reply({ toolCalls: [{ name: 'linear__write_note', arguments: { text: 'hi' } }] }, { text: 'Written.' });
    const before = e.model.requests.length;
    const { ts } = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'write hi in linear' });
    // write_note is not read-only: it is approved first; the allowed call then meets the 403 and waits for the sign-in.
    await waitFor(() => texts(e.slack, ts).some((t) => t.includes('Approval needed')), 10_000, 'the approval question');
    await e.slack.userMessage({ user: ALICE, channel: CHANNEL, text: 'allow', threadTs: ts });
    const again = (await waitFor(
      () => e.slack.ephemerals.find((n) => n.user === ALICE && n.text.includes('sign in again')),
      10_000,
      'the sign-in-again notice',
    ))!;
    expect(again.thread_ts).toBe(ts);
    await waitFor(async () => (await activeRun(e, ts))?.status === 'waiting_user', 10_000, 'the run to wait');
    const link = again.text.match(/https?:\/\/[^\s>|]+/)![0].replaceAll('&amp;', '&');
    expect(new URL(link).searchParams.get('scope')?.split(' ')).toContain('admin');
    expect((await fetch(await fake.consent(link, { subject: 'ana' }))).status).toBe(200);
    await waitFor(() => texts(e.slack, ts).includes('Written.'), 10_000, 'the answer after the step-up');
    expect(toolResults(e.model.requests[before + 1]!).at(-1)).toEqual({ ok: true, content: 'ana wrote hi' });
    expect(e.model.requests).toHaveLength(before + 2);
    // Not asked to approve again after the sign-in.
    expect(texts(e.slack, ts).filter((t) => t.includes('Approval needed'))).toHaveLength(1);
  });

  it('a link opened after it expired, while the run still waits, brings a fresh link privately; connecting through it resumes the run', async () => {
    const { e, fake } = await startWithLinear();
    e.model.reply({ toolCalls: [{ name: 'linear__sign_in', arguments: {} }] }, { text: 'Connected at last.' });
    const { ts } = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'check linear' });
    const link = (await waitFor(() => connectLink(e, ALICE), 10_000, 'the Connect notice'))!;
    await waitFor(async () => (await activeRun(e, ts))?.status === 'waiting_user', 10_000, 'the run to wait');
    e.clock.advance(11 * 60_000);
    const page = await fetch(await fake.consent(link, { subject: 'ana' }));
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('expired');
    const fresh = (await waitFor(
      () => e.slack.ephemerals.find((n) => n.user === ALICE && n.text.startsWith('That Connect link had expired')),
      10_000,
      'the fresh link',
    ))!;
    expect(fresh.thread_ts).toBe(ts);
    const freshLink = connectLink(e, ALICE)!;
    expect(freshLink).not.toBe(link);
    expect((await activeRun(e, ts))?.status).toBe('waiting_user');
    expect((await fetch(await fake.consent(freshLink, { subject: 'ana' }))).status).toBe(200);
    await waitFor(() => texts(e.slack, ts).includes('Connected at last.'), 10_000, 'the answer');
    expect(toolResults(e.model.requests[1]!).at(-1)).toEqual(expect.objectContaining({ ok: true, connected: true }));
  });

  it('a person who declines consent gets a clear page and a private note; the waiting call is not run and the model is told; nothing is stored', async () => {
    const { e, fake } = await startWithLinear();
    e.model.reply({ toolCalls: [{ name: 'linear__sign_in', arguments: {} }] }, { text: 'OK, without linear.' });
    const { ts } = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'check linear' });
    const link = (await waitFor(() => connectLink(e, ALICE), 10_000, 'the Connect notice'))!;
    await waitFor(async () => (await activeRun(e, ts))?.status === 'waiting_user', 10_000, 'the run to wait');
    const page = await fetch(await fake.consent(link, { answer: 'deny' }));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Not connected');
    const note = (await waitFor(
      () => e.slack.ephemerals.find((n) => n.user === ALICE && n.text.startsWith('You did not allow')),
      10_000,
      'the declined note',
    ))!;
    expect(note.thread_ts).toBe(ts);
    await waitFor(() => texts(e.slack, ts).includes('OK, without linear.'), 10_000, 'the answer');
    expect(toolResults(e.model.requests[1]!).at(-1)).toEqual({
      ok: false,
      error: expect.stringContaining(`${ALICE} declined to connect linear`),
    });
    expect(await connections(e, ALICE)).toContain('You have not connected any MCP server yet.');
    expect(fake.accepted).toEqual([]);
  });

  it('the App Home lists her connections with Disconnect; the click forgets her tokens and the Home shows it; Bob sees only his', async () => {
    const { e, fake } = await startWithLinear();
    const homeText = (user: string) => JSON.stringify(e.slack.homeOf(user)?.view.blocks ?? []);
    await e.slack.openHome(ALICE);
    await waitFor(() => homeText(ALICE).includes('Your connections'), 10_000, 'the Home with its Connections section');
    expect(homeText(ALICE)).toContain('You have not connected any MCP server yet.');
    expect(homeText(ALICE)).toContain('Not connected: linear');

    e.model.reply({ toolCalls: [{ name: 'linear__sign_in', arguments: {} }] }, { text: 'Connected.' });
    const { ts } = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'connect linear' });
    expect(
      (
        await fetch(
          await fake.consent((await waitFor(() => connectLink(e, ALICE), 10_000, 'the Connect notice'))!, {
            subject: 'ana',
          }),
        )
      ).status,
    ).toBe(200);
    await waitFor(() => texts(e.slack, ts).includes('Connected.'), 10_000, 'the answer');
    await e.app.coordinator.idle();

    await e.slack.openHome(ALICE);
    await waitFor(() => homeText(ALICE).includes('as ana'), 10_000, 'her connection on the Home');
    const disconnect = disconnectActionId('linear');
    expect(homeText(ALICE)).toContain(disconnect);
    for (const t of fake.issued) expect(homeText(ALICE)).not.toContain(t.accessToken);
    await e.slack.openHome(BOB);
    await waitFor(() => homeText(BOB).includes('Your connections'), 10_000, "Bob's Home");
    expect(homeText(BOB)).not.toContain('as ana');
    expect(homeText(BOB)).not.toContain(disconnect);

    await e.slack.clickInView({ user: ALICE, viewId: e.slack.homeOf(ALICE)!.id, actionId: disconnect });
    await waitFor(() => homeText(ALICE).includes('Disconnected'), 10_000, 'the Home after Disconnect');
    expect(homeText(ALICE)).not.toContain('as ana');
    expect(homeText(ALICE)).toContain('You have not connected any MCP server yet.');
    expect(await connections(e, ALICE)).toContain('You have not connected any MCP server yet.');
  });
});
