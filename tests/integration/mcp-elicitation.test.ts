import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PostIntent } from '../../src/agent/agent-types.js';
import { parseElicitationActionId, type ElicitationForm } from '../../src/chat/elicitation-form.js';
import { openDatabase } from '../../src/db/client.js';
import { ElicitationDesk } from '../../src/questions/mcp/elicitation-desk.js';
import type { ElicitationRuns } from '../../src/questions/mcp/elicitation-runs.js';
import { createSqliteStore, type SqliteStore } from '../../src/composition/sqlite-store.js';
import { createMcpHub, type McpHub } from '../../src/composition/mcp-hub.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { waitFor } from '../fakes/wait-for.js';
import { startElicitFixture, type ElicitFixture } from '../fixtures/mcp/elicit-fixture-server.js';
import { capturingLogger, contentOf, settings, slackChannel, toolContext } from '../fixtures/mcp/mcp-test-kit.js';

/** The outbox as the desk sees it: what was posted, edited and sent privately. */
class RecordedPosts {
  readonly posts: { conversationId: string; runId: string | null; intent: PostIntent }[] = [];
  readonly edits: { messageId: string; text: string }[] = [];
  readonly privately: { userId: string; text: string }[] = [];
  async record(conversationId: string, runId: string | null, intent: PostIntent) {
    this.posts.push({ conversationId, runId, intent });
    return [this.posts.length];
  }
  async delivered(ticket: readonly number[]) {
    return `M${ticket.at(-1)}`;
  }
  async recordEdit(_c: string, _r: string | null, messageId: string, text: string) {
    this.edits.push({ messageId, text });
  }
  async recordEphemeral(_c: string, userId: string, text: string) {
    this.privately.push({ userId, text });
  }
  piecesOf(_c: string, intent: PostIntent) {
    return [{ text: intent.text }];
  }
}

let fixture: ElicitFixture;
let hub: McpHub | null = null;
let store: SqliteStore | null = null;
beforeAll(async () => {
  fixture = await startElicitFixture();
});
afterAll(() => fixture.close());
afterEach(async () => {
  await hub?.close();
  hub = null;
  await store?.close();
  store = null;
});

/** A desk as one Errand process has it; several on one store are several processes on one database. */
function deskOn(
  shared: SqliteStore,
  clock: FakeClock,
  posts: RecordedPosts,
  options: { privateLinks?: boolean; askTimeoutMs?: number; runs?: ElicitationRuns; pollMs?: number } = {},
) {
  const { runs, pollMs } = options;
  return new ElicitationDesk({
    posts,
    store: shared.elicitations,
    ...(runs ? { runs } : {}),
    ...(pollMs ? { pollMs } : {}),
    clock,
    askTimeoutMs: options.askTimeoutMs ?? 60 * 60_000,
    logger: capturingLogger().logger,
    privateIn: () => options.privateLinks ?? true,
  });
}

async function setUp(
  options: {
    privateLinks?: boolean;
    askTimeoutMs?: number;
    clock?: FakeClock;
    runs?: ElicitationRuns;
    pollMs?: number;
  } = {},
) {
  const posts = new RecordedPosts();
  const clock = options.clock ?? new FakeClock();
  store = createSqliteStore(openDatabase(':memory:'), clock, { ownsDb: true });
  const desk = deskOn(store, clock, posts, options);
  hub = createMcpHub({
    servers: { diner: settings({ url: fixture.url, timeoutSeconds: 5 }) },
    logger: capturingLogger().logger,
    clock,
  });
  hub.bindElicitation(desk);
  await hub.start();
  expect(hub.status()[0]?.state).toBe('connected');
  const call = (tool: string, signal = new AbortController().signal, runId = 'r1') => {
    const t = hub!.toolsFor(slackChannel).find((x) => x.name === `diner__${tool}`);
    if (!t) throw new Error(`no tool ${tool}`);
    return t.call({}, { ...toolContext(), runId }, signal);
  };
  /** The elicitation id of the newest question post, once it is there. */
  const asked = async (n = 1) => {
    const post = (await waitFor(() => posts.posts[n - 1], 5000, 'the question post'))!;
    const ref = parseElicitationActionId(post.intent.buttons![0]!.actionId)!;
    return { id: ref.id, post };
  };
  return { posts, desk, clock, call, asked, store };
}

const actor = (id: string, userId = 'U1') => ({ id, platform: 'slack', userId });

describe("MCP elicitation: a server asks the run's principal during a tool call (real SDK server over Streamable HTTP)", () => {
  it("posts the question to the principal with Answer/Decline, opens the schema's form with its defaults, checks the fields and sends accept with typed content", async () => {
    const { desk, call, asked, posts } = await setUp();
    const result = call('book_table');
    const { id, post } = await asked();
    expect(post.intent).toMatchObject({ purpose: 'question', mentionUserId: 'U1' });
    expect(post.intent.text).toContain('**diner** (running `diner__book_table`) asks you');
    expect(post.intent.text).toContain('> Which table should I book?');
    expect(post.intent.buttons!.map((b) => b.label)).toEqual(['Answer', 'Decline']);

    const opened = await desk.handle({ kind: 'open', ...actor(id) });
    expect(opened.kind).toBe('form');
    const form = (opened as { form: ElicitationForm }).form;
    expect(form.server).toBe('diner');
    expect(form.fields.map((f) => [f.name, f.kind, f.required, f.initial])).toEqual([
      ['party', 'number', true, 2],
      ['date', 'text', true, null],
      ['seating', 'choice', false, 'in'],
      ['vegetarian', 'boolean', false, false],
      ['note', 'text', false, null],
      ['extras', 'multi', false, null],
    ]);
    expect(form.fields[2]).toMatchObject({
      options: [
        { value: 'in', label: 'Indoors' },
        { value: 'out', label: 'Terrace' },
      ],
    });

    const wrong = await desk.handle({
      kind: 'submit',
      ...actor(id),
      values: { party: '13', date: '2026-02-30', note: 'x'.repeat(21), extras: ['cake', 'balloons'] },
    });
    expect(wrong).toEqual({
      kind: 'errors',
      errors: {
        party: 'Enter 12 or less.',
        date: 'Enter a date as YYYY-MM-DD.',
        note: 'Enter at most 20 characters.',
        extras: '"balloons" is not one of: Birthday cake, Flowers.',
      },
    });
    const answered = await desk.handle({
      kind: 'submit',
      ...actor(id),
      values: { party: '4', date: '2026-03-01', seating: 'out', vegetarian: 'true', extras: ['cake'] },
    });
    expect(answered).toEqual({ kind: 'answered', text: 'Sent your answer to diner.' });
    expect(JSON.parse(contentOf(await result))).toEqual({
      action: 'accept',
      content: { party: 4, date: '2026-03-01', seating: 'out', vegetarian: true, extras: ['cake'] },
    });
    await waitFor(() => posts.edits.length === 1, 2000, 'the outcome edit');
    expect(posts.edits[0]).toEqual({ messageId: 'M1', text: `${post.intent.text}\n\n✅ Answered by <@U1>.` });
    expect(desk.open).toBe(0);
  });

  it('only the principal may answer; anyone else is told privately whose question it is', async () => {
    const { desk, call, asked } = await setUp();
    const result = call('pick_seating');
    const { id } = await asked();
    expect(await desk.handle({ kind: 'open', ...actor(id, 'U2') })).toEqual({
      kind: 'refused',
      text: 'This question from diner is for <@U1>, who asked for this work.',
    });
    expect(await desk.handle({ kind: 'decline', ...actor(id, 'U2') })).toMatchObject({ kind: 'refused' });
    expect(await desk.handle({ kind: 'decline', id, platform: 'discord', userId: 'U1' })).toMatchObject({
      kind: 'refused',
    });
    expect(await desk.handle({ kind: 'decline', ...actor(id) })).toEqual({
      kind: 'answered',
      text: 'Told diner you declined.',
    });
    expect(JSON.parse(contentOf(await result))).toEqual({ action: 'decline', content: null });
    expect(await desk.handle({ kind: 'open', ...actor(id) })).toMatchObject({
      kind: 'refused',
      text: expect.stringContaining('This question is closed'),
    });
  });

  it('accepting a form without changing a field sends every default (SEP-1034)', async () => {
    const { desk, call, asked } = await setUp();
    const result = call('defaults');
    const { id } = await asked();
    await desk.handle({ kind: 'submit', ...actor(id), values: {} });
    expect(JSON.parse(contentOf(await result))).toEqual({
      action: 'accept',
      content: { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true },
    });
  });

  it("a stop cancels the question, and nobody answering within ASK_TIMEOUT_MINUTES cancels it, while the call's own timeout does not run meanwhile", async () => {
    const clock = new FakeClock();
    const { call, asked, posts } = await setUp({ clock, askTimeoutMs: 30 * 60_000 });
    const stop = new AbortController();
    const stopped = call('pick_seating', stop.signal);
    await asked(1);
    stop.abort();
    expect(await stopped).toMatchObject({ ok: false, error: expect.stringContaining('cancelled') });
    await waitFor(
      () => posts.edits.some((e) => e.text.includes('⏹️ Closed: the work was stopped')),
      2000,
      'the stopped edit',
    );

    const waiting = call('pick_seating');
    await asked(2);
    clock.advance(10 * 60_000); // past the server's 5 s timeoutSeconds: the call still waits for the person
    const pending = new Promise((resolve) => setTimeout(() => resolve('still waiting'), 100));
    expect(await Promise.race([waiting, pending])).toBe('still waiting');
    clock.advance(20 * 60_000);
    expect(JSON.parse(contentOf(await waiting))).toEqual({ action: 'cancel', content: null });
    await waitFor(
      () => posts.edits.some((e) => e.text.endsWith('⌛ Nobody answered in time: cancelled.')),
      2000,
      'the timeout edit',
    );
  });

  it('URL mode: the link goes privately to the principal where the platform allows, the thread names its host, and Done accepts', async () => {
    const { desk, call, asked, posts } = await setUp({ privateLinks: true });
    const result = call('pay');
    const { id, post } = await asked();
    expect(post.intent.buttons!.map((b) => b.label)).toEqual(['Done', 'Decline']);
    expect(post.intent.text).toContain('open a page on **pay.example.com**');
    expect(post.intent.text).not.toContain('https://pay.example.com');
    expect(posts.privately).toEqual([
      { userId: 'U1', text: expect.stringContaining('https://pay.example.com/deposit?id=42') },
    ]);
    expect(await desk.handle({ kind: 'open', ...actor(id) })).toMatchObject({ kind: 'refused' });
    await desk.handle({ kind: 'done', ...actor(id) });
    expect(JSON.parse(contentOf(await result))).toEqual({ action: 'accept', content: null });
  });

  it('URL mode where no notice is private: the post has Show link, whose reply gives the link to the principal alone', async () => {
    const { desk, call, asked, posts } = await setUp({ privateLinks: false });
    const result = call('pay');
    const { id, post } = await asked();
    expect(post.intent.buttons!.map((b) => b.label)).toEqual(['Show link', 'Done', 'Decline']);
    expect(post.intent.text).not.toContain('https://pay.example.com');
    expect(posts.privately).toEqual([]);
    expect(await desk.handle({ kind: 'link', ...actor(id, 'U2') })).toMatchObject({ kind: 'refused' });
    expect(await desk.handle({ kind: 'link', ...actor(id) })).toEqual({
      kind: 'private',
      text: expect.stringContaining('https://pay.example.com/deposit?id=42'),
    });
    await desk.handle({ kind: 'decline', ...actor(id) });
    expect(JSON.parse(contentOf(await result))).toEqual({ action: 'decline', content: null });
  });

  it("URL mode: the server's notifications/elicitation/complete ends a question still waiting for Done, as accepted", async () => {
    const { call, asked, posts } = await setUp();
    const result = call('pay_and_confirm');
    await asked();
    expect(JSON.parse(contentOf(await result))).toEqual({ action: 'accept', content: null });
    await waitFor(
      () => posts.edits.some((e) => e.text.endsWith('✅ Finished on the page.')),
      2000,
      'the finished edit',
    );
  });

  it('a form Errand cannot draw (a nested object) is declined with the reason to the server and a note in the thread', async () => {
    const { call, posts } = await setUp();
    expect(JSON.parse(contentOf(await call('nested')))).toEqual({ action: 'decline', content: null });
    expect(fixture.log.at(-1)).toMatchObject({
      action: 'decline',
      _meta: { 'errand/reason': expect.stringContaining('"address" is a nested object') },
    });
    expect(posts.posts).toEqual([
      {
        conversationId: 'c1',
        runId: 'r1',
        intent: {
          purpose: 'note',
          text: expect.stringContaining('⚠️ **diner** asked <@U1> something I cannot show as a form'),
        },
      },
    ]);
  });

  it('with calls of two runs in flight on the shared connection, a question cannot be placed and is cancelled rather than put to the wrong person', async () => {
    const { call, posts } = await setUp();
    const [a, b] = await Promise.all([
      call('pick_seating', undefined, 'run-a'),
      call('pick_seating', undefined, 'run-b'),
    ]);
    expect([a, b].map((r) => JSON.parse(contentOf(r)))).toEqual([
      { action: 'cancel', content: null },
      { action: 'cancel', content: null },
    ]);
    expect(posts.posts).toEqual([]);
  });

  it('a question with no tool call in flight is refused with an error', async () => {
    await setUp();
    await expect(fixture.askOutsideCall()).rejects.toThrow(/only during a tools\/call/);
  });

  describe('answered on another process (two desks on one database)', () => {
    /** The holding process's runs: its calls run (not stopped); a wake-up from the other process reaches `woken`. */
    const runsOf = (woken: (conversationId: string) => void): ElicitationRuns => ({
      stopped: async () => false,
      settled: async () => false,
      wake: woken,
    });

    it("a submission on process B is checked against the stored schema and settles A's waiting call; A hears it by B's wake-up and edits the post", async () => {
      let a: ElicitationDesk | null = null;
      const { desk, call, asked, store: shared, clock, posts } = await setUp({ runs: runsOf(() => undefined) });
      a = desk;
      const b = deskOn(shared, clock, new RecordedPosts(), { runs: runsOf(() => void a!.recheck()) });
      const result = call('book_table');
      const { id, post } = await asked();

      const opened = await b.handle({ kind: 'open', ...actor(id) });
      expect(opened).toMatchObject({
        kind: 'form',
        form: { id, server: 'diner', message: 'Which table should I book?' },
      });
      expect((opened as { form: ElicitationForm }).form.fields.map((f) => f.name)).toEqual([
        'party',
        'date',
        'seating',
        'vegetarian',
        'note',
        'extras',
      ]);
      expect(await b.handle({ kind: 'submit', ...actor(id), values: { party: '13' } })).toMatchObject({
        kind: 'errors',
        errors: { party: 'Enter 12 or less.', date: 'Required.' },
      });
      expect(await b.handle({ kind: 'submit', ...actor(id), values: { date: '2026-03-01' } })).toEqual({
        kind: 'answered',
        text: 'Sent your answer to diner.',
      });

      expect(JSON.parse(contentOf(await result))).toEqual({
        action: 'accept',
        content: { party: 2, date: '2026-03-01', seating: 'in', vegetarian: false },
      });
      await waitFor(() => posts.edits.length === 1, 2000, 'the outcome edit by the holder');
      expect(posts.edits[0]).toEqual({ messageId: 'M1', text: `${post.intent.text}\n\n✅ Answered by <@U1>.` });
      expect(desk.open).toBe(0);
    });

    it('without a wake-up the holder finds the answer at its next look (every pollMs on its clock)', async () => {
      const { call, asked, store: shared, clock } = await setUp({ runs: runsOf(() => undefined), pollMs: 1000 });
      const b = deskOn(shared, clock, new RecordedPosts(), { runs: runsOf(() => undefined) });
      const result = call('pick_seating');
      const { id } = await asked();
      expect(await b.handle({ kind: 'decline', ...actor(id) })).toEqual({
        kind: 'answered',
        text: 'Told diner you declined.',
      });
      const pending = new Promise((resolve) => setTimeout(() => resolve('still waiting'), 100));
      expect(await Promise.race([result, pending])).toBe('still waiting');
      clock.advance(1000);
      expect(JSON.parse(contentOf(await result))).toEqual({ action: 'decline', content: null });
    });

    it('only the first answer counts, wherever each lands; the principal alone may answer on B too', async () => {
      const { desk, call, asked, store: shared, clock } = await setUp({ runs: runsOf(() => undefined) });
      const b = deskOn(shared, clock, new RecordedPosts(), { runs: runsOf(() => undefined) });
      const result = call('pick_seating');
      const { id } = await asked();
      expect(await b.handle({ kind: 'open', ...actor(id, 'U2') })).toEqual({
        kind: 'refused',
        text: 'This question from diner is for <@U1>, who asked for this work.',
      });
      expect(await b.handle({ kind: 'submit', ...actor(id, 'U2'), values: { seating: 'out' } })).toMatchObject({
        kind: 'refused',
      });
      expect(
        await b.handle({ kind: 'submit', id, platform: 'discord', userId: 'U1', values: { seating: 'out' } }),
      ).toMatchObject({ kind: 'refused' });

      expect(await b.handle({ kind: 'submit', ...actor(id), values: { seating: 'out' } })).toMatchObject({
        kind: 'answered',
      });
      // The holder has not looked yet: a click there finds the question settled and brings B's answer to the call.
      expect(await desk.handle({ kind: 'decline', ...actor(id) })).toMatchObject({
        kind: 'refused',
        text: expect.stringContaining('This question is closed'),
      });
      expect(JSON.parse(contentOf(await result))).toEqual({ action: 'accept', content: { seating: 'out' } });
      expect(await b.handle({ kind: 'decline', ...actor(id) })).toMatchObject({
        kind: 'refused',
        text: expect.stringContaining('This question is closed'),
      });
      expect(await shared.elicitations.get(id)).toMatchObject({
        state: 'answered',
        answeredBy: 'U1',
        answer: { action: 'accept', content: { seating: 'out' } },
      });
    });
  });
});

describe('MCP elicitation: questions carried over a restart, put again where the post did not outlive the process', () => {
  it("lists the person's carried-over questions with their buttons (a link's private line too), oldest first; one whose run was stopped is closed instead", async () => {
    const clock = new FakeClock();
    const posts = new RecordedPosts();
    const shared = createSqliteStore(openDatabase(':memory:'), clock, { ownsDb: true });
    store = shared;
    const stopped = new Set(['run-stopped']);
    const desk = deskOn(shared, clock, posts, {
      runs: { stopped: async (runId) => stopped.has(runId), settled: async () => false, wake: () => undefined },
    });
    const base = {
      conversationId: 'console:1',
      platform: 'console',
      principal: 'you',
      server: 'diner',
      tool: 'diner__x',
      fingerprint: 'fp',
    };
    const form = {
      mode: 'form',
      message: 'Where?',
      requestedSchema: { type: 'object', properties: { seating: { type: 'string', enum: ['in', 'out'] } } },
    };
    await shared.elicitations.add({
      ...base,
      id: 'form1',
      runId: 'run-1',
      request: form,
      postText: 'Where would you like to sit?',
      askedAt: 200,
    });
    await shared.elicitations.add({
      ...base,
      id: 'link1',
      runId: 'run-2',
      request: { mode: 'url', message: 'Pay', url: 'https://pay.example.com/x', elicitationId: 'e1' },
      postText: 'Pay on pay.example.com',
      askedAt: 100,
    });
    await shared.elicitations.add({
      ...base,
      id: 'gone1',
      runId: 'run-stopped',
      request: form,
      postText: 'Stopped one',
      askedAt: 50,
    });
    await shared.elicitations.setMessage('gone1', 'out-7');
    for (const id of ['form1', 'link1', 'gone1']) await shared.elicitations.carryOver(id);

    expect(await desk.carriedOverTo('console', 'you')).toEqual([
      {
        id: 'link1',
        text: 'Pay on pay.example.com',
        buttons: [
          { actionId: 'errand:elicit:link1:done', label: 'Done' },
          { actionId: 'errand:elicit:link1:decline', label: 'Decline' },
        ],
        privateLink: '🔗 The page diner asks you to open (only you see this): https://pay.example.com/x',
      },
      {
        id: 'form1',
        text: 'Where would you like to sit?',
        buttons: [
          { actionId: 'errand:elicit:form1:answer', label: 'Answer' },
          { actionId: 'errand:elicit:form1:decline', label: 'Decline' },
        ],
        privateLink: null,
      },
    ]);
    expect(await shared.elicitations.get('gone1')).toMatchObject({ state: 'cancelled' });
    expect(posts.edits).toEqual([
      { messageId: 'out-7', text: expect.stringContaining('Closed: the work was stopped') },
    ]);
    expect(await desk.carriedOverTo('console', 'someone else')).toEqual([]);
  });
});
