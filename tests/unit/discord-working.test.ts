import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createWorkingIndicator } from '../../adapters/discord/typing.js';
import type { RunStep } from '../../src/chat/chat-adapter.js';
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
    editNotice: async (c, id, _stop, text) => void log.push(`edit ${c} ${id}\n${text}`),
    deleteNotice: async (c, id) => void log.push(`delete ${c} ${id}`),
  });
}

const step = (id: string, status: RunStep['status'], title: string, output?: string): RunStep => ({
  id,
  status,
  title,
  ...(output ? { output } : {}),
});

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

  it('lists the steps of the run in the notice, edited at most once per 1.5 s with the latest steps', async () => {
    const w = indicator();
    const r1 = { runId: 'r1', stopActionId: 's1' };
    w.set('C1', { ...r1, steps: [step('a', 'running', 'Reading the thread')] });
    await vi.advanceTimersByTimeAsync(2000);
    releaseNotice?.();
    await vi.advanceTimersByTimeAsync(0);
    expect(log.filter((l) => !l.startsWith('typing'))).toEqual(['notice C1 s1']);
    w.set('C1', {
      ...r1,
      steps: [step('a', 'done', 'Reading the thread'), step('b', 'running', 'Running tracker__search')],
    });
    await vi.advanceTimersByTimeAsync(0);
    w.set('C1', {
      ...r1,
      steps: [
        step('a', 'done', 'Reading the thread'),
        step('b', 'failed', 'Running tracker__search', 'the tracker is down'),
      ],
    });
    await vi.advanceTimersByTimeAsync(1400);
    expect(log.filter((l) => l.startsWith('edit'))).toEqual([]);
    await vi.advanceTimersByTimeAsync(200);
    expect(log.filter((l) => l.startsWith('edit'))).toEqual([
      'edit C1 N1\n⏳ Working… press **Stop** to stop me.\n✅ Reading the thread\n❌ Running tracker__search — the tracker is down',
    ]);
    w.set('C1', null);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(log.filter((l) => l.startsWith('edit'))).toHaveLength(1);
    expect(log.at(-1)).toBe('delete C1 N1');
  });
});
