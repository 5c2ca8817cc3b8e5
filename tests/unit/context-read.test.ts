import { describe, expect, it } from 'vitest';
import { withFirstRead, type ContextRead, type ContextReadResult } from '../../src/agent/context-read.js';

const place = { platform: 'memory', workspace: 'W1', channel: 'C1', thread: 'T1' };
const principal = { platform: 'memory', userId: 'U1' };
const asked: ContextRead = {
  conversationId: 'c1',
  viewer: 'U1',
  historyRows: 400,
  memoryOf: { principal, place, goal: 'g' },
};
const result = (tag: string): ContextReadResult => ({
  summary: null,
  mine: null,
  window: [],
  memories: [{ id: 1, scope: 'me', text: tag }],
});

/** A reader that records what it was asked and answers `fresh`. */
function reader() {
  const reads: ContextRead[] = [];
  return { reads, read: async (r: ContextRead) => (reads.push(r), result('fresh')) };
}

describe("a run's first context read served from its start's read", () => {
  it('answers the first read asking the same context with the start read, and reads every later one', async () => {
    const store = reader();
    const read = withFirstRead(store.read, asked, result('start'));
    expect(await read({ ...asked, memoryOf: { ...asked.memoryOf! } })).toEqual(result('start'));
    expect(store.reads).toEqual([]);
    expect(await read(asked)).toEqual(result('fresh'));
    expect(store.reads).toHaveLength(1);
  });

  it('reads a first call that asks for another context (another viewer, window, goal or no memories), and then every call', async () => {
    for (const other of [
      { ...asked, viewer: null },
      { ...asked, historyRows: 10 },
      { ...asked, memoryOf: { ...asked.memoryOf!, goal: 'other' } },
      { ...asked, memoryOf: { ...asked.memoryOf!, principal: { ...principal } } },
      { ...asked, memoryOf: null },
    ]) {
      const store = reader();
      const read = withFirstRead(store.read, asked, result('start'));
      expect(await read(other)).toEqual(result('fresh'));
      expect(await read(asked), 'the start read is never used after another read').toEqual(result('fresh'));
      expect(store.reads).toHaveLength(2);
    }
  });
});
