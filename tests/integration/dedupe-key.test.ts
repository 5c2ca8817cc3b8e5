import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';
import { useStoreKinds } from '../support/store-kinds.js';

const stores = useStoreKinds();

let h: Harness;
afterEach(async () => h.close());

describe.each(stores.kinds)('de-duplication key (%s)', (kind) => {
  it('answers two messages with the same id in different channels (Slack ts is unique per channel only)', async () => {
    h = await startHarness(await stores.env(kind));
    h.model.reply({ text: 'answer in C1' }, { text: 'answer in C2' });
    const inC1 = h.adapter.thread('C1', '1700000000.000100');
    const inC2 = h.adapter.thread('C2', '1700000000.000100');
    await h.adapter.say(inC1, 'hi from C1', { messageId: '1700000000.000100' });
    await h.app.coordinator.idle();
    await h.adapter.say(inC2, 'hi from C2', { messageId: '1700000000.000100' });
    await h.app.coordinator.idle();
    expect(h.model.requests).toHaveLength(2);
    expect(h.adapter.textsIn(inC2)).toEqual(['answer in C2']);
  });

  it('still answers a redelivery in the same channel only once', async () => {
    h = await startHarness(await stores.env(kind));
    const thread = h.adapter.thread('C1', '1700000000.000200');
    await h.adapter.say(thread, 'hi', { messageId: '1700000000.000200' });
    await h.adapter.say(thread, 'hi', { messageId: '1700000000.000200' });
    await h.app.coordinator.idle();
    expect(h.model.requests).toHaveLength(1);
  });
});
