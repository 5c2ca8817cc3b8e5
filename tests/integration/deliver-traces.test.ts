import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OutboundMessage, PostedMessage } from '../../src/chat/chat-adapter.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import { TargetGoneError } from '../../src/errors.js';
import { silentLogger } from '../../src/logger.js';
import { createOutbox, type Outbox } from '../../src/outbox/outbox.js';
import { openStore } from '../../src/composition/open-store.js';
import type { Store } from '../../src/store/store.js';
import { loadTracing } from '../../src/telemetry/load-tracing.js';
import type { Tracing } from '../../src/telemetry/tracing.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { startFakeCollector, type FakeCollector } from '../fakes/fake-otlp-collector.js';
import { MemoryAdapter } from '../fakes/memory-adapter.js';
import { promiseHooksOn } from '../fakes/promise-hooks.js';
import { waitFor } from '../fakes/wait-for.js';

/** The in-memory platform, refusing the posts it is told to, and noting whether a promise hook was on at each post. */
class RefusingAdapter extends MemoryAdapter {
  refuse: unknown[] = [];
  hooked: boolean[] = [];

  override async postMessage(conversation: ConversationRef, message: OutboundMessage): Promise<PostedMessage> {
    this.hooked.push(await promiseHooksOn());
    const refusal = this.refuse.shift();
    if (refusal) throw refusal;
    return super.postMessage(conversation, message);
  }
}

const ref: ConversationRef = { platform: 'memory', workspace: 'W1', channel: 'C1', thread: 't1' };
let dir = '';
let store: Store;
let collector: FakeCollector;
let tracing: Tracing;
let adapter: RefusingAdapter;
let outbox: Outbox;
let conversationId = '';

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'errand-deliver-traces-'));
  const clock = new FakeClock();
  store = await openStore({ DATABASE_PATH: join(dir, 'errand.db') }, clock);
  collector = await startFakeCollector();
  tracing = await loadTracing(
    { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_BSP_SCHEDULE_DELAY: '10' },
    silentLogger(),
  );
  adapter = new RefusingAdapter();
  conversationId = await store.conversations.ensure(ref);
  const { conversations } = store;
  outbox = createOutbox({
    store,
    clock,
    logger: silentLogger(),
    adapters: new Map([['memory', adapter]]),
    refOf: (id) => conversations.refOf(id),
    onQuestionPosted: async () => undefined,
    backoffMs: () => 1000,
    tracing: { tracing, parentOf: () => null },
  });
  await outbox.start();
});
afterEach(async () => {
  await outbox.stop(0);
  await tracing.shutdown();
  await collector.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('delivery spans', () => {
  it('a delivery the platform refuses marks its span failed with error.type; deliveries run with no promise hook', async () => {
    // Test files share a worker: one that left a storage of its own on (the PostgreSQL store's) hooks every promise
    // anyway, and then only "tracing adds no hook" can be seen. In a clean worker: no hook at all.
    const baseline = await promiseHooksOn();
    adapter.refuse.push(new TargetGoneError('the channel is archived', 'is_archived'));
    const gone = await outbox.atomically((tx) =>
      outbox.record(conversationId, null, { purpose: 'answer', text: 'Nobody reads this.' }, tx),
    );
    await expect(outbox.delivered(gone)).rejects.toBeInstanceOf(TargetGoneError);
    const fine = await outbox.atomically((tx) =>
      outbox.record(conversationId, null, { purpose: 'answer', text: 'Hello.' }, tx),
    );
    await outbox.delivered(fine);
    await waitFor(() => collector.spans.length === 2, 5_000, 'both delivery spans');
    const [refused, posted] = collector.spans;
    expect(refused).toMatchObject({
      name: 'deliver answer',
      statusCode: 2,
      attributes: { 'error.type': 'target_gone', 'errand.outbox.purpose': 'answer' },
    });
    expect(posted).toMatchObject({ name: 'deliver answer', statusCode: 0 });
    expect(posted!.attributes).not.toHaveProperty('error.type');
    // The delivery's span is handed to it, not carried through the async context: nothing hooks the platform call's promises.
    expect(adapter.hooked).toEqual([baseline, baseline]);
  });
});
