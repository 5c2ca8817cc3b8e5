import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../fakes/wait-for.js';
import { gate, startHarness, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => h.close());

describe('stop', () => {
  it('drops the pieces of a long answer the platform has not taken yet', async () => {
    h = await startHarness();
    const paragraphs = Array.from({ length: 20 }, (_, i) => `Paragraph ${i} ${'x'.repeat(300)}`);
    h.model.reply({ text: paragraphs.join('\n\n') });
    const slow = gate();
    h.adapter.postGate = slow.promise;
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'write a long answer');
    await waitFor(async () => (await h.app.outbox.store.pendingConversations()).length === 1);
    h.adapter.postGate = null;
    await h.adapter.say(thread, 'stop');
    slow.open();
    await waitFor(() => h.adapter.textsIn(thread).some((t) => t.startsWith('⏹️')));
    await new Promise((r) => setTimeout(r, 100));
    const answerPieces = h.adapter.textsIn(thread).filter((t) => t.includes('Paragraph'));
    expect(answerPieces.length).toBeLessThanOrEqual(1);
    expect(await h.app.outbox.store.pendingConversations()).toEqual([]);
  });
});
