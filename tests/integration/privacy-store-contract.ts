import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FORGOTTEN_TEXT } from '../../src/memory/recall-redaction.js';
import type { ErrandStore as Store } from '../../src/composition/errand-store.js';
import type { StoreFactory } from './store-contract.js';

const ANA = 'U0ANA';
const BOB = 'U0BOB';

/**
 * What keeping one person's material private relies on from any Store (DESIGN.md "Private stays private in a shared
 * thread"): rows private to a person, answers held for their choice, their own summaries, and a forget that reaches
 * every row that showed the memory. `peer` is another process on the same database where there can be one.
 */
export function privacyStoreContract(name: string, factory: StoreFactory): void {
  describe(`${name}: what stays private`, () => {
    let store: Store;
    let peer: Store;
    let close: () => Promise<void>;
    beforeEach(async () => {
      ({ store, peer, close } = await factory());
    });
    afterEach(async () => close());

    const thread = (t: string) =>
      store.conversations.ensure({ platform: 'memory', workspace: 'W1', channel: 'C1', thread: t });

    it("keeps whom a row is private to, and reads one person's private rows of a conversation by range", async () => {
      const c = await thread(`P${Date.now()}`);
      const pub = await store.transcript.append({ conversationId: c, runId: 'r1', role: 'user', content: 'hello' });
      const a1 = await store.transcript.append({
        conversationId: c,
        runId: 'r1',
        role: 'tool',
        content: 'ana 1',
        toolCallId: 'x',
        privateTo: ANA,
      });
      await store.transcript.append({
        conversationId: c,
        runId: 'r2',
        role: 'tool',
        content: 'bob 1',
        toolCallId: 'y',
        privateTo: BOB,
      });
      const a2 = await store.transcript.append({
        conversationId: c,
        runId: 'r1',
        role: 'assistant',
        content: 'ana 2',
        privateTo: ANA,
      });
      const rows = await peer.transcript.recent(c, 10);
      expect(rows.map((r) => [r.content, r.privateTo])).toEqual([
        ['hello', null],
        ['ana 1', ANA],
        ['bob 1', BOB],
        ['ana 2', ANA],
      ]);
      expect((await peer.transcript.privateRows(c, ANA, 0, a2, 10)).map((r) => r.content)).toEqual(['ana 1', 'ana 2']);
      expect((await peer.transcript.privateRows(c, ANA, a1, a2, 10)).map((r) => r.content)).toEqual(['ana 2']);
      expect((await peer.transcript.privateRows(c, ANA, 0, a2, 1)).map((r) => r.content)).toEqual(['ana 1']);
      expect(await peer.transcript.privateRows(c, ANA, pub, a1 - 1, 10)).toEqual([]);
    });

    it('holds an answer for its owner; the first choice wins across processes, and Share makes its transcript row public', async () => {
      const c = await thread(`H${Date.now()}`);
      const row = await store.transcript.append({
        conversationId: c,
        runId: 'r1',
        role: 'assistant',
        content: 'your code is 42',
        privateTo: ANA,
      });
      const id = await store.privateAnswers.hold({
        conversationId: c,
        runId: 'r1',
        messageId: row,
        owner: ANA,
        purpose: 'answer',
        text: 'your code is 42',
      });
      expect(await peer.privateAnswers.get(id)).toMatchObject({
        id,
        conversationId: c,
        owner: ANA,
        purpose: 'answer',
        text: 'your code is 42',
        state: 'held',
        messageId: row,
        decidedAt: null,
      });
      const raced = await Promise.all([
        store.privateAnswers.decide(id, 'shared', 5),
        peer.privateAnswers.decide(id, 'kept', 6),
      ]);
      expect(raced.filter(Boolean)).toHaveLength(1);
      const decided = (await store.privateAnswers.get(id))!;
      expect(decided.state).toBe(raced[0] ? 'shared' : 'kept');
      expect((await store.transcript.recent(c, 5)).at(-1)?.privateTo).toBe(raced[0] ? null : ANA);
      expect(await store.privateAnswers.decide(id, 'shared', 7)).toBe(false);
      expect(await store.privateAnswers.get(id + 100_000)).toBeNull();

      const update = await store.privateAnswers.hold({
        conversationId: c,
        runId: null,
        messageId: null,
        owner: ANA,
        purpose: 'update',
        text: 'half way',
      });
      expect(await peer.privateAnswers.decide(update, 'shared', 8)).toBe(true);
      expect(await store.privateAnswers.get(update)).toMatchObject({ state: 'shared', decidedAt: 8, messageId: null });
    });

    it("keeps a held post's files in order for any process until they are dropped, and publishes a person's workspace file only while it holds the bytes shared", async () => {
      const c = await thread(`F${Date.now()}`);
      const id = await store.privateAnswers.hold({
        conversationId: c,
        runId: 'r1',
        messageId: null,
        owner: ANA,
        purpose: 'files',
        text: 'a.txt\nb.png',
      });
      const png = new Uint8Array([137, 80, 78, 71, 0, 255]);
      await store.privateAnswers.holdFiles(id, [
        { name: 'a.txt', mimeType: 'text/plain', bytes: new TextEncoder().encode('ana'), post: 0 },
        { name: 'b.png', mimeType: 'image/png', bytes: png, post: 1 },
      ]);
      const held = await peer.privateAnswers.filesOf(id);
      expect(held.map((f) => [f.name, f.mimeType, f.post, Buffer.from(f.bytes).toString('hex')])).toEqual([
        ['a.txt', 'text/plain', 0, Buffer.from('ana').toString('hex')],
        ['b.png', 'image/png', 1, Buffer.from(png).toString('hex')],
      ]);
      await peer.privateAnswers.dropFiles(id);
      expect(await store.privateAnswers.filesOf(id)).toEqual([]);

      // Ana's private file shadows the public one for her alone; publishing it takes the bytes she shared only.
      const file = (text: string, owner?: string) => ({
        path: 'posted/a.txt',
        bytes: Buffer.from(text),
        size: text.length,
        mtime: 1,
        ...(owner ? { owner } : {}),
      });
      await store.workspaces.apply(c, { upserts: [file('public'), file('ana', ANA)], deletes: [] }, 10);
      expect((await peer.workspaces.filesFor(c, BOB)).map((f) => f.bytes.toString())).toEqual(['public']);
      expect((await peer.workspaces.filesFor(c, ANA)).map((f) => [f.bytes.toString(), f.owner ?? null])).toEqual([
        ['public', null],
        ['ana', ANA],
      ]);
      expect(await peer.workspaces.privateEntries(c)).toEqual([{ path: 'posted/a.txt', size: 3, owner: ANA }]);
      expect(
        await store.workspaces.publish(c, ANA, [{ path: 'posted/a.txt', bytes: Buffer.from('changed since') }]),
      ).toBe(0);
      expect(await store.workspaces.publish(c, BOB, [{ path: 'posted/a.txt', bytes: Buffer.from('ana') }])).toBe(0);
      expect(await peer.workspaces.publish(c, ANA, [{ path: 'posted/a.txt', bytes: Buffer.from('ana') }])).toBe(1);
      expect((await store.workspaces.files(c)).map((f) => f.bytes.toString())).toEqual(['ana']);
      expect(await store.workspaces.privateEntries(c)).toEqual([]);
    });

    it("writes a person's own summary with a compare-and-swap, apart from everyone else's", async () => {
      const c = await thread(`S${Date.now()}`);
      expect(await store.memory.privateSummary(c, ANA)).toBeNull();
      const first = await Promise.all([
        store.memory.savePrivateSummary(c, ANA, 0, 'A', 10),
        peer.memory.savePrivateSummary(c, ANA, 0, 'B', 10),
      ]);
      expect(first.filter(Boolean)).toHaveLength(1);
      expect(await store.memory.savePrivateSummary(c, BOB, 0, 'bob only', 12)).toBe(true);
      expect(await peer.memory.savePrivateSummary(c, ANA, 1, 'A2', 20)).toBe(true);
      expect(await store.memory.savePrivateSummary(c, ANA, 1, 'stale', 30)).toBe(false);
      expect(await store.memory.privateSummary(c, ANA)).toMatchObject({
        summary: 'A2',
        version: 2,
        throughMessageId: 20,
      });
      expect(await peer.memory.privateSummary(c, BOB)).toMatchObject({ summary: 'bob only', version: 1 });
      expect(await store.memory.summary(c)).toBeNull();
    });

    it('forgets a memory out of every transcript row that showed it, and drops the private summaries that may hold it', async () => {
      const c = await thread(`F${Date.now()}`);
      const other = await thread(`G${Date.now()}`);
      const gone = await store.memory.remember({
        scope: 'me',
        subject: `memory:${ANA}`,
        text: 'code 4711',
        createdBy: `memory:${ANA}`,
      });
      const kept = await store.memory.remember({
        scope: 'me',
        subject: `memory:${ANA}`,
        text: 'likes tea',
        createdBy: `memory:${ANA}`,
      });
      const shown = (ids: number[]) =>
        JSON.stringify({
          ok: true,
          memories: ids.map((id) => ({
            memory_id: id,
            scope: 'me',
            text: id === gone.id ? 'code 4711' : 'likes tea',
            remembered_at: '2026-01-01T00:00:00.000Z',
          })),
        });
      const both = await store.transcript.append({
        conversationId: c,
        runId: 'r1',
        role: 'tool',
        content: shown([gone.id, kept.id]),
        toolCallId: 'a',
        privateTo: ANA,
        memoryIds: [gone.id, kept.id],
      });
      await store.transcript.append({
        conversationId: other,
        runId: 'r2',
        role: 'tool',
        content: shown([gone.id]),
        toolCallId: 'b',
        privateTo: ANA,
        memoryIds: [gone.id],
      });
      const teaOnly = await store.transcript.append({
        conversationId: c,
        runId: 'r3',
        role: 'tool',
        content: shown([kept.id]),
        toolCallId: 'c',
        privateTo: ANA,
        memoryIds: [kept.id],
      });
      await store.memory.savePrivateSummary(c, ANA, 0, 'code 4711, likes tea', both);
      await store.memory.savePrivateSummary(other, ANA, 0, 'before it', 1);
      await store.memory.savePrivateSummary(c, BOB, 0, 'bob', both);

      expect(await peer.memory.forget(gone.id)).toBe(true);
      const everywhere = [...(await store.transcript.recent(c, 10)), ...(await store.transcript.recent(other, 10))];
      expect(everywhere.map((r) => r.content).join('\n')).not.toContain('4711');
      expect(everywhere.filter((r) => r.content?.includes(FORGOTTEN_TEXT))).toHaveLength(2);
      expect(everywhere.find((r) => r.id === both)?.content).toContain('likes tea');
      expect(everywhere.find((r) => r.id === teaOnly)?.content).toBe(shown([kept.id]));
      expect(await store.memory.privateSummary(c, ANA)).toBeNull();
      expect(await store.memory.privateSummary(other, ANA)).toMatchObject({ summary: 'before it' });
      expect(await store.memory.privateSummary(c, BOB)).toMatchObject({ summary: 'bob' });
      expect(await store.memory.memory(gone.id)).toBeNull();
      expect(await store.memory.forget(gone.id)).toBe(false);
    });
  });
}
