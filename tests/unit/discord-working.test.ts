import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createWorkingIndicator } from '../../adapters/discord/typing.js';
import { silentLogger } from '../../src/logger.js';

let log: string[];
let releaseNotice: (() => void) | null;

function indicator() {
  return createWorkingIndicator({
    logger: silentLogger(),
    typingIntervalMs: 8000,
    noticeDelayMs: 2000,
    sendTyping: async (c) => void log.push(`typing ${c}`),
    postNotice: (c, stop) =>
      new Promise<string>((resolve) => {
        log.push(`notice ${c} ${stop}`);
        releaseNotice = () => resolve('N1');
      }),
    deleteNotice: async (c, id) => void log.push(`delete ${c} ${id}`),
  });
}

beforeEach(() => {
  vi.useFakeTimers();
  log = [];
  releaseNotice = null;
});
afterEach(() => vi.useRealTimers());

describe('Discord working indicator', () => {
  it('a quick answer (ended within 400 ms) shows neither typing nor the notice', async () => {
    const w = indicator();
    w.set('C1', { runId: 'r1', stopActionId: 'errand:stop:r1' });
    await vi.advanceTimersByTimeAsync(350);
    w.set('C1', null);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(log).toEqual([]);
  });

  it('types after 400 ms and every 8 s after; a run that ends within 2 s never shows the notice', async () => {
    const w = indicator();
    w.set('C1', { runId: 'r1', stopActionId: 'errand:stop:r1' });
    expect(log).toEqual([]);
    await vi.advanceTimersByTimeAsync(400);
    expect(log).toEqual(['typing C1']);
    await vi.advanceTimersByTimeAsync(1500);
    w.set('C1', null);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(log).toEqual(['typing C1']);
  });

  it('shows the Stop notice after 2 s, keeps typing, and deletes the notice when cleared, even mid-post', async () => {
    const w = indicator();
    w.set('C1', { runId: 'r1', stopActionId: 'errand:stop:r1' });
    w.set('C1', { runId: 'r1', stopActionId: 'errand:stop:r1' });
    await vi.advanceTimersByTimeAsync(8400);
    expect(log).toEqual(['typing C1', 'notice C1 errand:stop:r1', 'typing C1']);
    w.set('C1', null);
    releaseNotice?.();
    await vi.advanceTimersByTimeAsync(0);
    expect(log.at(-1)).toBe('delete C1 N1');
    await vi.advanceTimersByTimeAsync(20_000);
    expect(log.filter((l) => l.startsWith('typing'))).toHaveLength(2);
  });

  it('stopAll ends every channel', async () => {
    const w = indicator();
    w.set('C1', { runId: 'r1', stopActionId: 's1' });
    w.set('C2', { runId: 'r2', stopActionId: 's2' });
    await vi.advanceTimersByTimeAsync(400);
    await w.stopAll();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(log).toEqual(['typing C1', 'typing C2']);
  });
});
