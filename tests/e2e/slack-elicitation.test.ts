import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMcpHub } from '../../src/composition/mcp-hub.js';
import type { StoredMessage } from '../fakes/fake-slack.js';
import { waitFor } from '../fakes/wait-for.js';
import { startElicitFixture, type ElicitFixture } from '../fixtures/mcp/elicit-fixture-server.js';
import { capturingLogger, settings } from '../fixtures/mcp/mcp-test-kit.js';
import { toolResults } from './mcp-e2e-kit.js';
import { buttonsOf, startErrand, type Errand } from './slack-harness.js';
import { startRestartableSlackErrand } from './slack-restart-harness.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';
const BOB = 'U0BOB0001';

let fixture: ElicitFixture;
let e: Errand | null = null;
beforeAll(async () => {
  fixture = await startElicitFixture();
});
afterAll(() => fixture.close());
afterEach(async () => {
  await e?.close();
  e = null;
});

/** Alice asks; the model calls `diner__<tool>`, whose server asks her something; resolves with the question's post. */
async function askVia(
  tool: string,
  after = 'Done.',
  env: Record<string, string> = {},
): Promise<{ e: Errand; ts: string; question: StoredMessage }> {
  const hub = createMcpHub({ servers: { diner: settings({ url: fixture.url }) }, logger: capturingLogger().logger });
  e = await startErrand({ externalTools: hub, env });
  e.model.reply({ toolCalls: [{ name: `diner__${tool}`, arguments: {} }] }, { text: after });
  const { ts } = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'book me a table' });
  const question = (await waitFor(
    () =>
      e!.slack.messages(CHANNEL, ts).find((m) => buttonsOf(m).some((b) => b.action_id.startsWith('errand:elicit:'))),
    10_000,
    'the question post',
  ))!;
  return { e, ts, question };
}

const button = (m: StoredMessage, op: string) => buttonsOf(m).find((b) => b.action_id.endsWith(`:${op}`))!.action_id;
const lastResponse = (e: Errand) => e.slack.responses.at(-1)?.body;

describe('MCP elicitation on Slack (real Bolt against the fake Slack, real MCP SDK server)', () => {
  it('Answer opens a modal built from the schema with defaults filled in; a wrong field comes back as a field error; a good submission reaches the server and the post says who answered', async () => {
    const { e, ts, question } = await askVia('book_table', 'Booked.');
    expect(question.text).toContain(`<@${ALICE}>`);
    expect(question.text).toContain('diner');
    expect(buttonsOf(question).map((b) => b.action_id.split(':').at(-1))).toEqual(['answer', 'decline']);

    await e.slack.click({
      user: ALICE,
      channel: CHANNEL,
      messageTs: question.ts,
      actionId: button(question, 'answer'),
    });
    const modal = (await waitFor(() => e.slack.modalOf(ALICE), 5000, 'the modal'))!;
    expect(modal.view.title).toEqual({ type: 'plain_text', text: 'Answer diner' });
    const inputs = (
      modal.view.blocks as {
        type: string;
        optional?: boolean;
        label?: { text: string };
        element?: Record<string, unknown>;
      }[]
    ).filter((b) => b.type === 'input');
    expect(inputs.map((b) => [b.label!.text, b.element!.type, b.optional])).toEqual([
      ['Party size', 'number_input', false],
      ['Date', 'datepicker', false],
      ['Seating', 'static_select', true],
      ['Vegetarian menu', 'radio_buttons', true],
      ['Note', 'plain_text_input', true],
      ['Extras', 'multi_static_select', true],
    ]);
    expect(inputs[0]!.element).toMatchObject({
      is_decimal_allowed: false,
      min_value: '1',
      max_value: '12',
      initial_value: '2',
    });
    expect(inputs[2]!.element).toMatchObject({ initial_option: { text: { text: 'Indoors' } } });
    expect(inputs[4]!.element).toMatchObject({ max_length: 20 });

    const noDate = await e.slack.submitView({ user: ALICE, viewId: modal.id, values: {} });
    expect(noDate.response).toEqual({ response_action: 'errors', errors: { 'field-1': 'Required.' } });
    const terrace = '1';
    const { response } = await e.slack.submitView({
      user: ALICE,
      viewId: modal.id,
      values: { 'field-1': '2026-03-01', 'field-2': terrace, 'field-5': ['0'] },
    });
    expect(response).toBeNull();

    await waitFor(() => e.slack.botTexts(CHANNEL, ts).includes('Booked.'), 10_000, 'the answer');
    expect(toolResults(e.model.requests[1]!)).toEqual([
      {
        ok: true,
        content: JSON.stringify({
          action: 'accept',
          content: { party: 2, date: '2026-03-01', seating: 'out', vegetarian: false, extras: ['cake'] },
        }),
      },
    ]);
    const edited = await waitFor(
      () => e.slack.messages(CHANNEL, ts).find((m) => m.ts === question.ts && m.text.includes('Answered by')),
      5000,
      'the edited question',
    );
    expect(buttonsOf(edited!)).toEqual([]);
  });

  it("someone else's click is refused privately and changes nothing; Decline by the principal sends decline", async () => {
    const { e, ts, question } = await askVia('pick_seating', 'Fine, no table.');
    // While the question waits, the call's step says whom it waits for, not that the tool runs.
    const card = () =>
      e.slack
        .messages(CHANNEL, ts)
        .flatMap((m) => m.tasks ?? [])
        .at(-1);
    await waitFor(() => card()?.title === 'Waiting for you to answer diner', 5000, 'the waiting card');
    expect(card()).toMatchObject({ status: 'pending' });
    const bobs = await e.slack.click({
      user: BOB,
      channel: CHANNEL,
      messageTs: question.ts,
      actionId: button(question, 'answer'),
    });
    await waitFor(() => e.slack.responses.some((r) => r.id === bobs.responseId), 5000, 'the refusal');
    expect(lastResponse(e)).toMatchObject({
      response_type: 'ephemeral',
      text: `This question from diner is for <@${ALICE}>, who asked for this work.`,
    });
    expect(e.slack.modalOf(BOB)).toBeUndefined();

    await e.slack.click({
      user: ALICE,
      channel: CHANNEL,
      messageTs: question.ts,
      actionId: button(question, 'decline'),
    });
    await waitFor(() => e.slack.botTexts(CHANNEL, ts).includes('Fine, no table.'), 10_000, 'the answer');
    expect(toolResults(e.model.requests[1]!)).toEqual([
      { ok: true, content: JSON.stringify({ action: 'decline', content: null }) },
    ]);
  });

  it('URL mode: the link goes to the principal alone (ephemeral); the thread names the host; Done accepts', async () => {
    const { e, ts, question } = await askVia('pay', 'Paid.');
    expect(question.text).toContain('pay.example.com');
    expect(question.text).not.toContain('https://pay.example.com/deposit');
    expect(buttonsOf(question).map((b) => b.action_id.split(':').at(-1))).toEqual(['done', 'decline']);
    await waitFor(
      () =>
        e.slack.ephemerals.some((x) => x.user === ALICE && x.text.includes('https://pay.example.com/deposit?id=42')),
      5000,
      'the private link',
    );
    await e.slack.click({ user: ALICE, channel: CHANNEL, messageTs: question.ts, actionId: button(question, 'done') });
    await waitFor(() => e.slack.botTexts(CHANNEL, ts).includes('Paid.'), 10_000, 'the answer');
    expect(toolResults(e.model.requests[1]!)).toEqual([
      { ok: true, content: JSON.stringify({ action: 'accept', content: null }) },
    ]);
  });

  it("the minutes a person takes to answer count neither against the server's timeout nor against the run's time limit", async () => {
    const { e, ts, question } = await askVia('pick_seating', 'Seated in the end.', { MAX_RUN_MINUTES: '1' });
    e.clock.advance(5 * 60_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(e.slack.botTexts(CHANNEL, ts).some((t) => t.includes('time limit'))).toBe(false);
    await e.slack.click({
      user: ALICE,
      channel: CHANNEL,
      messageTs: question.ts,
      actionId: button(question, 'answer'),
    });
    const modal = (await waitFor(() => e.slack.modalOf(ALICE), 5000, 'the modal'))!;
    await e.slack.submitView({ user: ALICE, viewId: modal.id, values: { 'field-0': '0' } });
    await waitFor(() => e.slack.botTexts(CHANNEL, ts).includes('Seated in the end.'), 10_000, 'the answer');
    expect(toolResults(e.model.requests[1]!)).toEqual([
      { ok: true, content: JSON.stringify({ action: 'accept', content: { seating: 'in' } }) },
    ]);
  });

  it('a stop while the question waits cancels it and says so on the post', async () => {
    const { e, ts, question } = await askVia('pick_seating');
    await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'stop', threadTs: ts });
    await waitFor(
      () =>
        e.slack
          .messages(CHANNEL, ts)
          .some((m) => m.ts === question.ts && m.text.includes('Closed: the work was stopped')),
      10_000,
      'the cancelled post',
    );
    await waitFor(() => fixture.log.at(-1)?.action === 'cancel', 5000, 'the server hearing cancel');
  });

  it("a restart while the question waits: it stays open with its buttons and the run waits on it; answered after the restart, the call is made again and its server's repeated question gets the stored answer", async () => {
    const r = await startRestartableSlackErrand({
      externalTools: () =>
        createMcpHub({ servers: { diner: settings({ url: fixture.url }) }, logger: capturingLogger().logger }),
    });
    try {
      r.model.reply(
        { toolCalls: [{ name: 'diner__pick_seating', arguments: { near: 'window' } }] },
        { text: 'Seated after the restart.' },
      );
      const { ts } = await r.slack.mention({ user: ALICE, channel: CHANNEL, text: 'find me a seat' });
      const questions = () =>
        r.slack.messages(CHANNEL, ts).filter((m) => m.text.includes('Where would you like to sit?'));
      const first = (await waitFor(() => questions().find((m) => buttonsOf(m).length > 0), 10_000, 'the question'))!;
      const id = button(first, 'answer').split(':')[2]!;
      await waitFor(
        async () => (await r.app().store.elicitations.get(id))?.messageId === first.ts,
        5000,
        'the question to know its post',
      );
      const asked = fixture.log.length;

      await r.stop();
      await r.start();
      const row = (await r.app().store.elicitations.get(id))!;
      await waitFor(
        async () => (await r.app().runs.get(row.runId))?.status === 'waiting_user',
        10_000,
        'the run to wait on the question',
      );
      expect(row).toMatchObject({ state: 'waiting', carriedOver: true });
      // Still the one open question, with its buttons; the model was not asked anything again.
      expect(questions().map((m) => [m.ts, buttonsOf(m).length])).toEqual([[first.ts, 2]]);
      expect(r.model.requests).toHaveLength(1);

      await r.slack.click({ user: BOB, channel: CHANNEL, messageTs: first.ts, actionId: button(first, 'answer') });
      expect(r.slack.modalOf(BOB)).toBeUndefined();
      await r.slack.click({ user: ALICE, channel: CHANNEL, messageTs: first.ts, actionId: button(first, 'answer') });
      const modal = (await waitFor(() => r.slack.modalOf(ALICE), 5000, 'the modal, opened from the stored question'))!;
      await r.slack.submitView({ user: ALICE, viewId: modal.id, values: { 'field-0': '1' } });

      await waitFor(() => r.slack.botTexts(CHANNEL, ts).includes('Seated after the restart.'), 10_000, 'the answer');
      // The call was made again (same arguments) and the server's repeated question was answered from the stored answer.
      expect(fixture.log.slice(asked)).toEqual([{ action: 'accept', content: { seating: 'out' } }]);
      expect(toolResults(r.model.requests[1]!).at(-1)).toEqual({
        ok: true,
        content: JSON.stringify({ action: 'accept', content: { seating: 'out' } }),
      });
      expect(questions()).toHaveLength(1);
      const edited = (await waitFor(
        () => r.slack.messages(CHANNEL, ts).find((m) => m.ts === first.ts && m.text.includes('Answered by')),
        5000,
        'the answered post',
      ))!;
      expect(buttonsOf(edited)).toEqual([]);
      expect(await r.app().store.elicitations.get(id)).toMatchObject({
        state: 'answered',
        replayedAt: expect.any(Number),
      });
    } finally {
      await r.close();
    }
  });

  /** Alice's request on a restartable Errand, its question, and the restart while it waits. */
  async function restartedWhileAsking(tool: string, env: Record<string, string> = {}) {
    const r = await startRestartableSlackErrand({
      env,
      externalTools: () =>
        createMcpHub({ servers: { diner: settings({ url: fixture.url }) }, logger: capturingLogger().logger }),
    });
    r.model.reply({ toolCalls: [{ name: `diner__${tool}`, arguments: {} }] }, { text: 'Going on without it.' });
    const { ts } = await r.slack.mention({ user: ALICE, channel: CHANNEL, text: 'find me a seat' });
    const question = (await waitFor(
      () =>
        r.slack.messages(CHANNEL, ts).find((m) => buttonsOf(m).some((b) => b.action_id.startsWith('errand:elicit:'))),
      10_000,
      'the question',
    ))!;
    const id = button(question, 'decline').split(':')[2]!;
    await waitFor(
      async () => (await r.app().store.elicitations.get(id))?.messageId === question.ts,
      5000,
      'the question to know its post',
    );
    await r.stop();
    await r.start();
    const { runId } = (await r.app().store.elicitations.get(id))!;
    await waitFor(
      async () => (await r.app().runs.get(runId))?.status === 'waiting_user',
      10_000,
      'the run to wait on the question',
    );
    return { r, ts, question, decline: button(question, 'decline'), asked: fixture.log.length };
  }

  it('declined after a restart: the call is not made again and the model is told', async () => {
    const { r, ts, question, asked } = await restartedWhileAsking('pick_seating');
    try {
      await r.slack.click({
        user: ALICE,
        channel: CHANNEL,
        messageTs: question.ts,
        actionId: button(question, 'decline'),
      });
      await waitFor(() => r.slack.botTexts(CHANNEL, ts).includes('Going on without it.'), 10_000, 'the answer');
      expect(toolResults(r.model.requests[1]!).at(-1)).toEqual({
        ok: false,
        error: expect.stringContaining(
          `${ALICE} declined the question diner asked, so diner__pick_seating was not completed`,
        ),
      });
      expect(fixture.log.length).toBe(asked);
      await waitFor(
        () => r.slack.messages(CHANNEL, ts).some((m) => m.ts === question.ts && m.text.includes('Declined by')),
        5000,
        'the declined post',
      );
    } finally {
      await r.close();
    }
  });

  it('nobody answering within ASK_TIMEOUT_MINUTES after a restart: the question closes and the model is told', async () => {
    const { r, ts, question, decline } = await restartedWhileAsking('pick_seating', {
      ASK_TIMEOUT_MINUTES: '5',
      HEARTBEAT_SECONDS: '30',
    });
    try {
      r.clock.advance(6 * 60_000);
      await waitFor(() => r.slack.botTexts(CHANNEL, ts).includes('Going on without it.'), 10_000, 'the answer');
      expect(toolResults(r.model.requests[1]!).at(-1)).toEqual({
        ok: false,
        error: expect.stringContaining('Nobody answered the question diner asked within 5 minutes'),
      });
      const closed = (await waitFor(
        () =>
          r.slack.messages(CHANNEL, ts).find((m) => m.ts === question.ts && m.text.includes('Nobody answered in time')),
        5000,
        'the closed post',
      ))!;
      expect(buttonsOf(closed)).toEqual([]);
      // Settled, so a click that still reached it (a stale view) would be told it is closed.
      expect(await r.app().store.elicitations.get(decline.split(':')[2]!)).toMatchObject({
        state: 'cancelled',
        answer: { action: 'cancel' },
      });
    } finally {
      await r.close();
    }
  });

  it('stopped after a restart while the question waits: the run ends, and a click on the question is refused and closes its post', async () => {
    const { r, ts, question, decline } = await restartedWhileAsking('pick_seating');
    try {
      await r.slack.mention({ user: ALICE, channel: CHANNEL, text: 'stop', threadTs: ts });
      const id = decline.split(':')[2]!;
      const { runId } = (await r.app().store.elicitations.get(id))!;
      await waitFor(async () => (await r.app().runs.get(runId))?.status === 'cancelled', 5000, 'the run to be stopped');
      const click = await r.slack.click({ user: ALICE, channel: CHANNEL, messageTs: question.ts, actionId: decline });
      await waitFor(() => r.slack.responses.some((x) => x.id === click.responseId), 5000, 'the refusal');
      expect(r.slack.responses.find((x) => x.id === click.responseId)?.body).toMatchObject({
        text: expect.stringContaining('This question is closed'),
      });
      await waitFor(
        () =>
          r.slack
            .messages(CHANNEL, ts)
            .some(
              (m) =>
                m.ts === question.ts && m.text.includes('Closed: the work was stopped') && buttonsOf(m).length === 0,
            ),
        5000,
        'the closed post',
      );
      expect(r.model.requests).toHaveLength(1);
    } finally {
      await r.close();
    }
  });
});
