import { afterEach, describe, expect, it } from 'vitest';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import type { FakeToolCall, RecordedRequest } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { toolResultJson } from '../support/tool-result-json.js';
import { adminQuery, useTestDatabase } from '../support/test-database.js';
import { startHarness, type Harness } from './harness.js';

/*
 * Two Errand apps on one PostgreSQL database (DATABASE_URL), each with its own pool, model endpoint and chat
 * adapter: a memory stored through one process is in the other's next request, and forgetting it in one is
 * felt in the other's next request, with nothing cached in between.
 */

const database = useTestDatabase();
const ANA = 'U0ANA01';
const harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0).reverse()) await h.close();
  if (!database.skip) await adminQuery(database.url, 'truncate memories, conversation_summaries');
});

const systemText = (r: RecordedRequest) => String(r.messages[0]!.content);

/** One run in process `h`: Ana says `text`, the model makes `calls` (if any), then answers; the run's requests. */
async function run(
  h: Harness,
  where: ConversationRef,
  text: string,
  calls: FakeToolCall[] = [],
): Promise<RecordedRequest[]> {
  const before = h.model.requests.length;
  if (calls.length > 0) h.model.reply({ toolCalls: calls });
  h.model.reply({ text: `Answered: ${text}` });
  await h.adapter.say(where, text, { userId: ANA });
  await waitFor(() => h.adapter.textsIn(where).includes(`Answered: ${text}`), 10_000, `the answer to "${text}"`);
  await h.app.coordinator.idle();
  return h.model.requests.slice(before);
}

describe.skipIf(database.skip)('memories across processes on PostgreSQL', () => {
  it("forgets in one process and the other process's next request no longer carries the memory", async () => {
    for (let i = 0; i < 2; i++) harnesses.push(await startHarness({ DATABASE_URL: database.url, STREAMING: 'false' }));
    const [a, b] = [harnesses[0]!, harnesses[1]!];
    const there = a.adapter.thread('C1', 'T-a');
    const stored = await run(a, there, 'Remember that I deploy on Fridays', [
      { name: 'remember', arguments: { text: 'Ana deploys on Fridays' } },
    ]);
    const id = (toolResultJson(stored.at(-1)!.messages.at(-1)!.content) as { memory_id: number }).memory_id;

    const seenInB = await run(b, b.adapter.thread('C1', 'T-b'), 'When do I deploy?');
    expect(systemText(seenInB[0]!)).toContain('Ana deploys on Fridays');
    const seenInA = await run(a, there, 'And when again?');
    expect(systemText(seenInA[0]!)).toContain('Ana deploys on Fridays');

    const forgot = await run(b, b.adapter.thread('C1', 'T-b'), 'Forget when I deploy', [
      { name: 'forget', arguments: { memory_id: id } },
    ]);
    expect(toolResultJson(forgot.at(-1)!.messages.at(-1)!.content)).toMatchObject({ ok: true, forgotten: id });

    const after = await run(a, there, 'When do I deploy, once more?');
    expect(systemText(after[0]!)).not.toContain('Ana deploys on Fridays');
  });
});
