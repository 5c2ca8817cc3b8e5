import { afterEach, describe, expect, it } from 'vitest';
import { parseActionId } from '../../src/chat/action-id.js';
import type { FakeStep } from '../fakes/fake-openai.js';
import type { StoredMessage } from '../fakes/fake-slack.js';
import { waitFor } from '../fakes/wait-for.js';
import { ExternalToolsFixture } from '../integration/external-tools-fixture.js';
import { buttonsOf, startErrand, texts, type Errand } from './slack-harness.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';
const STALE = 'That question has already been answered.';

let e: Errand | null = null;
afterEach(async () => {
  await e?.app.coordinator.idle();
  await e?.close();
  e = null;
});

const ask = (question: string, options: string[]) => ({
  toolCalls: [{ name: 'ask_user', arguments: { question, options } }],
});

/** The private answer to a click, posted through its response_url. */
const clickReply = async (s: Errand['slack'], click: { responseId: string }) =>
  (await waitFor(() => s.responses.find((r) => r.id === click.responseId), 5000, 'the private answer to the click'))!
    .body;

/**
 * Alice asks; the model asks "Which format?" with buttons, Alice answers by typing, and the model's next
 * step (`next`) asks again: resolves with the first question and the post the run now waits on.
 */
async function askedTwice(
  next: FakeStep,
  waitingOn: string,
  after: string,
  tools?: ExternalToolsFixture,
): Promise<{ e: Errand; ts: string; first: StoredMessage; second: StoredMessage }> {
  e = await startErrand(tools ? { externalTools: tools.source } : {});
  const { slack: s, model, app } = e;
  model.reply(ask('Which format?', ['PDF', 'Markdown']), next, { text: after });
  const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'write the report' });
  const first = (await waitFor(
    () => s.messages(CHANNEL, ts).find((m) => m.text.includes('Which format?')),
    10_000,
    'the first question',
  ))!;
  await app.coordinator.idle();
  await s.userMessage({ user: ALICE, channel: CHANNEL, text: 'markdown please', threadTs: ts });
  const second = (await waitFor(
    () => s.messages(CHANNEL, ts).find((m) => m.text.includes(waitingOn) && buttonsOf(m).length > 0),
    10_000,
    'the second question',
  ))!;
  await app.coordinator.idle();
  return { e, ts, first, second };
}

describe('a button answers only the question it was posted with (Slack, real Bolt)', () => {
  it('an option of an earlier question, clicked while a later one waits, gets a private note and changes nothing; the current buttons still answer', async () => {
    const { e, ts, first, second } = await askedTwice(
      ask('Which size?', ['A4', 'Letter']),
      'Which size?',
      'Markdown on A4.',
    );
    const { slack: s, model, app } = e;
    const runId = parseActionId(buttonsOf(first)[0]!.action_id)!.runId;

    const stale = await s.click({
      user: ALICE,
      channel: CHANNEL,
      messageTs: first.ts,
      actionId: buttonsOf(first)[0]!.action_id,
    });
    expect(await clickReply(s, stale)).toMatchObject({ response_type: 'ephemeral', text: STALE });
    await app.coordinator.idle();
    const run = await app.runs.get(runId);
    expect(run?.status).toBe('waiting_user');
    expect(run?.question?.question).toBe('Which size?');
    expect(run?.question?.answer).toBeUndefined();
    expect(model.requests).toHaveLength(2);
    expect(buttonsOf(s.messages(CHANNEL, ts).find((m) => m.ts === second.ts)!)).toHaveLength(2);

    await s.click({ user: ALICE, channel: CHANNEL, messageTs: second.ts, actionId: buttonsOf(second)[0]!.action_id });
    await waitFor(() => texts(s, ts).includes('Markdown on A4.'), 10_000, 'the answer after the current click');
    const results = model.requests[2]!.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(results.at(-1)).toContain('"answer":"A4"');
    expect(JSON.stringify(model.requests[2]!.messages)).not.toContain('"answer":"PDF"');
  });

  it('an option of an earlier question, clicked while a tool approval waits, is no decision: the approval still waits, and Allow once still runs the tool', async () => {
    const tools = new ExternalToolsFixture();
    const approvalStep = { toolCalls: [{ name: 'tracker__create_issue', arguments: { title: 'Report in Markdown' } }] };
    const { e, ts, first, second } = await askedTwice(approvalStep, 'Approval needed', 'Filed it.', tools);
    const { slack: s, model, app } = e;
    const runId = parseActionId(buttonsOf(second)[0]!.action_id)!.runId;

    const stale = await s.click({
      user: ALICE,
      channel: CHANNEL,
      messageTs: first.ts,
      actionId: buttonsOf(first)[1]!.action_id,
    });
    expect(await clickReply(s, stale)).toMatchObject({ response_type: 'ephemeral', text: STALE });
    await app.coordinator.idle();
    const run = await app.runs.get(runId);
    expect(run?.status).toBe('waiting_user');
    expect(run?.question?.approval?.tool).toBe('tracker__create_issue');
    expect(run?.question?.answer).toBeUndefined();
    expect(tools.calls).toEqual([]);
    expect(model.requests).toHaveLength(2);

    await s.click({ user: ALICE, channel: CHANNEL, messageTs: second.ts, actionId: buttonsOf(second)[0]!.action_id });
    await waitFor(() => texts(s, ts).includes('Filed it.'), 10_000, 'the answer after Allow once');
    expect(tools.calls).toEqual([{ name: 'tracker__create_issue', args: { title: 'Report in Markdown' } }]);
  });
});
