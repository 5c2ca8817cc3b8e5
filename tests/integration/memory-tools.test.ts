import { afterEach, describe, expect, it } from 'vitest';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import type { FakeToolCall, RecordedRequest } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { toolResultJson } from '../support/tool-result-json.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => h.close());

const ANA = 'U0ANA';
const BOB = 'U0BOB';

const systemText = (r: RecordedRequest) => String(r.messages[0]!.content);
/** The parsed results of the newest step's tool calls in a request, in order (earlier runs' results are history). */
function results(r: RecordedRequest): Record<string, unknown>[] {
  const step = r.messages.findLastIndex((m) => m.role === 'assistant' && Array.isArray(m.tool_calls));
  return r.messages
    .slice(step + 1)
    .filter((m) => m.role === 'tool')
    .map((m) => toolResultJson(m.content) as Record<string, unknown>);
}

/**
 * One run: `userId` says `text` in `where`; the model makes `calls` (if any) in one step, then answers.
 * Returns the requests of that run, oldest first.
 */
async function run(
  where: ConversationRef,
  userId: string,
  text: string,
  calls: FakeToolCall[] = [],
  opts: { direct?: boolean } = {},
): Promise<RecordedRequest[]> {
  const before = h.model.requests.length;
  if (calls.length > 0) h.model.reply({ toolCalls: calls });
  h.model.reply({ text: `Answered: ${text}` });
  await h.adapter.say(where, text, { userId, ...opts });
  await waitFor(() => h.adapter.textsIn(where).includes(`Answered: ${text}`), 10_000, `the answer to "${text}"`);
  await h.app.coordinator.idle();
  return h.model.requests.slice(before);
}

describe('long-term memory: remember, recall, forget', () => {
  it("keeps A's `me` memory out of B's run in the same thread, even when B's run asks for scope me", async () => {
    h = await startHarness();
    // Ana tells Errand in a DM; both then talk in one thread.
    const stored = await run(
      h.adapter.thread('D1', null),
      ANA,
      'Remember that I am on the payments team',
      [{ name: 'remember', arguments: { text: 'Ana is on the payments team' } }],
      { direct: true },
    );
    expect(results(stored.at(-1)!)[0]).toMatchObject({ ok: true, scope: 'me', memory_id: expect.any(Number) });
    const thread = h.adapter.thread('C1', 'T1');
    const anasFirst = await run(thread, ANA, 'Hello from Ana');
    expect(systemText(anasFirst[0]!)).toContain('Ana is on the payments team');

    const bobs = await run(thread, BOB, 'Which team is on payments?', [
      { name: 'recall', arguments: { query: 'payments team', scope: 'me' } },
    ]);
    for (const r of bobs) expect(JSON.stringify(r.messages)).not.toContain('Ana is on the payments team');
    expect(results(bobs.at(-1)!)[0]).toMatchObject({ ok: true, memories: [] });

    const anas = await run(thread, ANA, 'Which team am I on?');
    expect(systemText(anas[0]!)).toContain('Ana is on the payments team');
    expect(systemText(anas[0]!)).toMatch(
      /What you remember[\s\S]*\[#\d+, about the person you work for\] Ana is on the payments team/,
    );
  });

  it('shows a channel memory in every thread of that channel, never in another channel or a DM', async () => {
    h = await startHarness();
    await run(h.adapter.thread('C1', 'T1'), ANA, 'Remember for everyone here: staging is https://staging.example', [
      { name: 'remember', arguments: { text: 'staging is https://staging.example', scope: 'channel' } },
    ]);
    const sameChannel = await run(h.adapter.thread('C1', 'T2'), BOB, 'Where is staging?');
    expect(systemText(sameChannel[0]!)).toContain('staging is https://staging.example');

    const otherChannel = await run(h.adapter.thread('C2', 'T3'), ANA, 'Where is staging?', [
      { name: 'recall', arguments: { query: 'staging', scope: 'channel' } },
    ]);
    for (const r of otherChannel) expect(JSON.stringify(r.messages)).not.toContain('staging.example');
    expect(results(otherChannel.at(-1)!)[0]).toMatchObject({ ok: true, memories: [] });

    const dm = await run(
      h.adapter.thread('D1', null),
      ANA,
      'Where is staging, privately?',
      [{ name: 'recall', arguments: {} }],
      { direct: true },
    );
    for (const r of dm) expect(JSON.stringify(r.messages)).not.toContain('staging.example');
  });

  it('answers bad memory calls with errors the model can act on, and lets admins remember for the workspace', async () => {
    h = await startHarness(errandFileEnv({ access: { admins: ['slack:U0ADMIN'] } }), { platform: 'slack' });
    const thread = h.adapter.thread('C1', 'T1');
    const bad = await run(thread, ANA, 'Try some bad memories', [
      { name: 'remember', arguments: { text: '   ' } },
      { name: 'remember', arguments: { text: 'x'.repeat(2000) } },
      { name: 'remember', arguments: { text: 'The company is Acme', scope: 'workspace' } },
      { name: 'forget', arguments: { memory_id: 4242 } },
      { name: 'remember', arguments: { text: 'fine', scope: 'everyone' } },
    ]);
    const [empty, long, workspace, unknown, scope] = results(bad.at(-1)!);
    expect(empty).toEqual({ ok: false, error: expect.stringContaining('the memory is empty') });
    expect(long).toEqual({ ok: false, error: expect.stringContaining('shorter than 2000 characters') });
    expect(workspace).toEqual({
      ok: false,
      error: expect.stringContaining('Only Errand admins may remember or forget for the whole workspace'),
    });
    expect(unknown).toEqual({
      ok: false,
      error: 'There is no memory #4242 here: use an id from recall or from the memories in your instructions.',
    });
    expect(scope).toMatchObject({ ok: false, error: expect.stringContaining('scope') });

    const admin = await run(thread, 'U0ADMIN', 'Remember the company name for everyone', [
      { name: 'remember', arguments: { text: 'The company is Acme', scope: 'workspace' } },
    ]);
    expect(results(admin.at(-1)!)[0]).toMatchObject({ ok: true, scope: 'workspace' });
    const elsewhere = await run(h.adapter.thread('C9', 'T9'), BOB, 'What is the company called?');
    expect(systemText(elsewhere[0]!)).toContain('The company is Acme');
    // Ana may not forget the workspace's memory either.
    const id = (results(admin.at(-1)!)[0] as { memory_id: number }).memory_id;
    const refused = await run(thread, ANA, 'Forget the company name', [
      { name: 'forget', arguments: { memory_id: id } },
    ]);
    expect(results(refused.at(-1)!)[0]).toMatchObject({
      ok: false,
      error: expect.stringContaining('Only Errand admins'),
    });
  });

  it('refuses a 201st memory of one person, and forgets one so the next request no longer carries it', async () => {
    h = await startHarness();
    for (let i = 0; i < 199; i++)
      await h.app.store.memory.remember({
        scope: 'me',
        subject: `memory:${ANA}`,
        text: `old fact ${i}`,
        createdBy: `memory:${ANA}`,
      });
    const thread = h.adapter.thread('C1', 'T1');
    const first = await run(thread, ANA, 'Remember my dog is called Rex', [
      { name: 'remember', arguments: { text: 'Ana has a dog called Rex' } },
    ]);
    const rex = (results(first.at(-1)!)[0] as { memory_id: number }).memory_id;
    const full = await run(thread, ANA, 'Remember my cat too', [
      { name: 'remember', arguments: { text: 'Ana has a cat' } },
    ]);
    expect(results(full.at(-1)!)[0]).toEqual({
      ok: false,
      error: 'This person already keeps 200 memories, the most allowed: forget one first (recall lists them with ids).',
    });

    const asked = await run(thread, ANA, 'What is my dog called?');
    expect(systemText(asked[0]!)).toContain('Ana has a dog called Rex');
    const forgot = await run(thread, ANA, 'Forget my dog', [{ name: 'forget', arguments: { memory_id: rex } }]);
    expect(results(forgot.at(-1)!)[0]).toMatchObject({ ok: true, forgotten: rex });
    expect(systemText(forgot.at(-1)!)).not.toContain('Ana has a dog called Rex');
  });
});
