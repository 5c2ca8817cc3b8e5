import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createMcpHub } from '../../src/mcp/mcp-hub.js';
import { startFakeOAuth, type FakeOAuth } from '../fakes/fake-oauth.js';
import { waitFor } from '../fakes/wait-for.js';
import { capturingLogger } from '../fixtures/mcp/mcp-test-kit.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { freePort } from '../support/free-port.js';
import { toolResults } from './mcp-e2e-kit.js';
import { startErrand, texts, type Errand } from './slack-harness.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';
const BOB = 'U0BOB0001';

let e: Errand | null = null;
let fake: FakeOAuth | null = null;
afterEach(async () => {
  await e?.app.coordinator.idle();
  await e?.close();
  await fake?.close();
  e = null;
  fake = null;
});

/** Errand on the Slack fake with one `auth: "oauth"` server, `linear`, in front of the fake authorization server. */
async function startWithLinear(): Promise<{ e: Errand; fake: FakeOAuth; publicUrl: string }> {
  fake = await startFakeOAuth();
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const env = { PUBLIC_URL: publicUrl, WEB_PORT: String(port), ERRAND_SECRET_KEY: randomBytes(32).toString('base64'), ...errandFileEnv({ mcpServers: { linear: { url: fake.mcpUrl, auth: 'oauth' } } }) };
  const servers = loadConfig({ OPENAI_API_KEY: 'k', ...env }).file.settings.mcpServers;
  const hub = createMcpHub({ servers, logger: capturingLogger().logger });
  e = await startErrand({ externalTools: hub, env });
  return { e, fake, publicUrl };
}

/** What `/connections` (with `text`) answers `user`, as Slack shows the ephemeral reply. */
async function connections(e: Errand, user: string, text = ''): Promise<string> {
  const r = await e.slack.slashCommand({ command: '/connections', text, user, channel: CHANNEL });
  expect(r.status).toBe(200);
  return (JSON.parse(r.body) as { text: string }).text;
}

/** The Connect link of the newest private notice to `user`. */
function connectLink(e: Errand, user: string): string | null {
  const notice = e.slack.ephemerals.filter((n) => n.user === user && n.text.includes('connect your account')).at(-1);
  return notice?.text.match(/https?:\/\/[^\s>|]+/)?.[0]?.replaceAll('&amp;', '&') ?? null;
}

describe('per-person OAuth for MCP servers on Slack (real Bolt, fake authorization server, protected MCP server)', () => {
  it('A without a connection gets a private Connect link and the model an error; after the callback her calls carry her token; B in the same thread is not served with it', async () => {
    const { e, fake } = await startWithLinear();
    // 1. Alice has no connection: the call does not reach the server, she is told privately, the model gets an error it can act on.
    e.model.reply({ toolCalls: [{ name: 'linear__sign_in', arguments: {} }] }, { text: 'Please connect linear first.' });
    const { ts } = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'what is on my linear board?' });
    await waitFor(() => texts(e.slack, ts).includes('Please connect linear first.'), 10_000, 'the first answer');
    expect(e.model.requests[0]!.tools.map((t) => t.function.name)).toContain('linear__sign_in');
    expect(toolResults(e.model.requests[1]!)).toEqual([{ ok: false, error: `${ALICE} has not connected linear yet; they were sent a link to connect. Ask them to connect and then try again.` }]);
    const link = (await waitFor(() => connectLink(e, ALICE), 10_000, "Alice's Connect notice"))!;
    const notice = e.slack.ephemerals.find((n) => n.user === ALICE)!;
    expect(notice.text).toContain('To use');
    expect(notice.text).toContain('linear');
    expect(notice.thread_ts).toBe(ts);
    expect(new URL(link).origin).toBe(fake.issuer);
    expect(fake.accepted).toEqual([]);
    expect(e.slack.ephemerals.filter((n) => n.user === BOB)).toEqual([]);

    // 2. Alice signs in as a browser would: consent at the authorization server, follow the redirect to /oauth/callback.
    const back = await fake.consent(link, { subject: 'ana' });
    const page = await fetch(back);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Connected');
    // The callback tells her, privately, in the thread of the run that asked.
    const done = (await waitFor(() => e.slack.ephemerals.find((n) => n.user === ALICE && n.text.startsWith('Connected')), 10_000, 'the Connected note'))!;
    expect(done.thread_ts).toBe(ts);
    expect(done.text).toContain('linear');

    // 3. Her next calls carry her token: the tool list is learned from her session, whoami answers "ana".
    e.model.reply({ toolCalls: [{ name: 'linear__sign_in', arguments: {} }] }, { toolCalls: [{ name: 'linear__whoami', arguments: {} }] }, { text: 'You are ana.' });
    const before = e.model.requests.length;
    await e.slack.userMessage({ user: ALICE, channel: CHANNEL, text: 'try again', threadTs: ts });
    await waitFor(() => texts(e.slack, ts).includes('You are ana.'), 10_000, 'the answer with her token');
    expect(toolResults(e.model.requests[before + 1]!).at(-1)).toEqual(expect.objectContaining({ ok: true, connected: true }));
    expect(e.model.requests[before + 1]!.tools.map((t) => t.function.name)).toEqual(expect.arrayContaining(['linear__whoami', 'linear__write_note']));
    expect(toolResults(e.model.requests[before + 2]!).at(-1)).toEqual({ ok: true, content: 'ana' });
    expect(fake.accepted.length).toBeGreaterThan(0);
    expect(new Set(fake.accepted.map((a) => a.subject))).toEqual(new Set(['ana']));
    const anasCalls = fake.accepted.length;

    // 4. Bob writes in the same thread: his run acts for him, and he has no connection, so Alice's token is not used.
    e.model.reply({ toolCalls: [{ name: 'linear__whoami', arguments: {} }] }, { text: 'Bob needs to connect.' });
    const beforeBob = e.model.requests.length;
    await e.slack.userMessage({ user: BOB, channel: CHANNEL, text: `<@${e.slack.botUserId}> and who am I?`, threadTs: ts });
    await waitFor(() => texts(e.slack, ts).includes('Bob needs to connect.'), 10_000, "Bob's answer");
    expect(toolResults(e.model.requests[beforeBob + 1]!).at(-1)).toEqual({ ok: false, error: `${BOB} has not connected linear yet; they were sent a link to connect. Ask them to connect and then try again.` });
    const bobsLink = (await waitFor(() => connectLink(e, BOB), 10_000, "Bob's Connect notice"))!;
    expect(fake.accepted).toHaveLength(anasCalls);

    // Bob connects his own account ("ben"): his calls carry his token, hers still hers.
    expect((await fetch(await fake.consent(bobsLink, { subject: 'ben' }))).status).toBe(200);
    e.model.reply({ toolCalls: [{ name: 'linear__whoami', arguments: {} }] }, { text: 'You are ben.' });
    const bobAgain = e.model.requests.length;
    await e.slack.userMessage({ user: BOB, channel: CHANNEL, text: `<@${e.slack.botUserId}> and now?`, threadTs: ts });
    await waitFor(() => texts(e.slack, ts).includes('You are ben.'), 10_000, "Bob's answer with his token");
    expect(toolResults(e.model.requests[bobAgain + 1]!).at(-1)).toEqual({ ok: true, content: 'ben' });
    expect(fake.accepted.slice(anasCalls).every((a) => a.subject === 'ben')).toBe(true);
    const bensCalls = fake.accepted.length;

    // 5. /connections lists hers (never a token), not Bob's; disconnect removes it and her next call asks her to connect again.
    const listed = await connections(e, ALICE);
    expect(listed).toContain('linear');
    expect(listed).toMatch(/since \d{4}-\d{2}-\d{2}/);
    for (const t of fake.issued) expect(listed).not.toContain(t.accessToken);
    expect(await connections(e, BOB)).toContain('*linear* as ben');
    expect(await connections(e, ALICE, 'disconnect linear')).toContain('Disconnected');
    expect(await connections(e, ALICE, 'disconnect linear')).toContain('You have no connection to');
    expect(await connections(e, ALICE)).toContain('You have not connected any MCP server yet.');
    e.model.reply({ toolCalls: [{ name: 'linear__whoami', arguments: {} }] }, { text: 'Connect again, please.' });
    const beforeAgain = e.model.requests.length;
    await e.slack.userMessage({ user: ALICE, channel: CHANNEL, text: 'who am I now?', threadTs: ts });
    await waitFor(() => texts(e.slack, ts).includes('Connect again, please.'), 10_000, 'the answer after disconnecting');
    expect(toolResults(e.model.requests[beforeAgain + 1]!).at(-1)).toMatchObject({ ok: false, error: expect.stringContaining(`${ALICE} has not connected linear yet`) });
    expect(fake.accepted).toHaveLength(bensCalls);
    // No token in any model request.
    const sent = JSON.stringify(e.model.requests);
    for (const t of fake.issued) expect(sent).not.toContain(t.accessToken);
  });

  it("a scheduled prompt's run uses its creator's connection, though nobody writes in its thread", async () => {
    const { e, fake } = await startWithLinear();
    // Alice connects.
    e.model.reply({ toolCalls: [{ name: 'linear__sign_in', arguments: {} }] }, { text: 'Connect first.' });
    const first = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'check linear' });
    const link = (await waitFor(() => connectLink(e, ALICE), 10_000, 'the Connect notice'))!;
    expect((await fetch(await fake.consent(link, { subject: 'ana' }))).status).toBe(200);
    await waitFor(() => texts(e.slack, first.ts).includes('Connect first.'), 10_000, 'the first answer');
    // Bob, who has no connection, asks for a scheduled prompt: its runs act for him. Alice asks for one too.
    const at = new Date(e.clock.now() + 60 * 60_000).toISOString();
    const schedule = (prompt: string) => ({ toolCalls: [{ name: 'schedule_prompt', arguments: { prompt, kind: 'once', spec: at, timezone: 'UTC' } }] });
    e.model.reply(schedule("report alice's board"), { text: 'Scheduled for Alice.' });
    const a = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'in an hour, report my board' });
    await waitFor(() => texts(e.slack, a.ts).includes('Scheduled for Alice.'), 10_000, "Alice's schedule");
    e.model.reply(schedule("report bob's board"), { text: 'Scheduled for Bob.' });
    const b = await e.slack.mention({ user: BOB, channel: CHANNEL, text: 'in an hour, report my board' });
    await waitFor(() => texts(e.slack, b.ts).includes('Scheduled for Bob.'), 10_000, "Bob's schedule");
    await e.app.coordinator.idle();

    // When they fire, each run calls linear as the person who scheduled it.
    // Until someone's session has listed the server's tools the model sees `linear__sign_in` alone (this server
    // was only signed in to, never called): it signs in first, then asks who it is.
    e.model.respondWith((request) => {
      const goal = JSON.stringify(request.messages);
      const last = toolResults(request).at(-1) as { ok?: boolean; connected?: boolean } | undefined;
      if (last === undefined) return { toolCalls: [{ name: 'linear__sign_in', arguments: {} }] };
      if (last.connected === true) return { toolCalls: [{ name: 'linear__whoami', arguments: {} }] };
      return { text: goal.includes("alice's board") ? 'Alice report done.' : 'Bob report done.' };
    });
    const before = e.model.requests.length;
    e.clock.advance(60 * 60_000 + 1000);
    await waitFor(() => e.slack.messages(CHANNEL, null).filter((m) => m.user === e.slack.botUserId && m.text.includes('Scheduled prompt')).length === 2, 10_000, 'both scheduled posts');
    await waitFor(() => e.model.requests.length >= before + 5, 10_000, 'both scheduled runs to call linear and answer');
    await e.app.coordinator.idle();
    const last = (who: string) =>
      e.model.requests
        .slice(before)
        .filter((r) => JSON.stringify(r.messages).includes(`report ${who}'s board`))
        .map((r) => toolResults(r).at(-1))
        .at(-1);
    expect(last('alice')).toEqual({ ok: true, content: 'ana' });
    expect(last('bob')).toMatchObject({ ok: false, error: expect.stringContaining(`${BOB} has not connected linear yet`) });
    // Bob, the creator, is the one told to connect; Alice's token never served his run.
    await waitFor(() => connectLink(e, BOB), 10_000, "Bob's Connect notice");
    expect(new Set(fake.accepted.map((x) => x.subject))).toEqual(new Set(['ana']));
  });

  it('a person who declines consent gets a clear page and a private note in the thread; nothing is stored', async () => {
    const { e, fake } = await startWithLinear();
    e.model.reply({ toolCalls: [{ name: 'linear__sign_in', arguments: {} }] }, { text: 'Connect first.' });
    const { ts } = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'check linear' });
    const link = (await waitFor(() => connectLink(e, ALICE), 10_000, 'the Connect notice'))!;
    const page = await fetch(await fake.consent(link, { answer: 'deny' }));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Not connected');
    const note = (await waitFor(() => e.slack.ephemerals.find((n) => n.user === ALICE && n.text.startsWith('You did not allow')), 10_000, 'the declined note'))!;
    expect(note.thread_ts).toBe(ts);
    expect(await connections(e, ALICE)).toContain('You have not connected any MCP server yet.');
    expect(fake.accepted).toEqual([]);
  });
});
