import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createWorkingIndicator, type WorkingSignal } from '../../src/chat/working-indicator.js';
import { silentLogger } from '../../src/logger.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

function recorder() {
  const log: string[] = [];
  const signals = (run: string): WorkingSignal<unknown>[] => [
    {
      name: 'typing',
      afterMs: 400,
      everyMs: 8000,
      show: async () => {
        log.push(`typing ${run}`);
        return null;
      },
    },
    {
      name: 'notice',
      afterMs: 2000,
      show: async () => {
        log.push(`notice ${run}`);
        return `n-${run}`;
      },
      hide: async (id) => void log.push(`hide ${String(id)}`),
    },
  ];
  return { log, signals };
}

describe('the shared working indicator', () => {
  it('shows nothing for a run that ends before the first delay', async () => {
    const { log, signals } = recorder();
    const w = createWorkingIndicator(silentLogger());
    w.set('c', 'r1', () => signals('r1'));
    vi.advanceTimersByTime(399);
    w.set('c', null, () => []);
    vi.advanceTimersByTime(10_000);
    await w.stopAll();
    expect(log).toEqual([]);
  });

  it('shows each signal after its delay, repeats the repeating one, and takes down what it showed once', async () => {
    const { log, signals } = recorder();
    const w = createWorkingIndicator(silentLogger());
    w.set('c', 'r1', () => signals('r1'));
    w.set('c', 'r1', () => signals('r1'));
    await vi.advanceTimersByTimeAsync(8400);
    expect(log).toEqual(['typing r1', 'notice r1', 'typing r1']);
    w.set('c', 'r2', () => signals('r2'));
    await vi.advanceTimersByTimeAsync(0);
    expect(log.at(-1)).toBe('hide n-r1');
    await w.stopAll();
    expect(log.filter((l) => l.startsWith('hide'))).toEqual(['hide n-r1']);
  });

  it('logs a failing platform call instead of throwing', async () => {
    const w = createWorkingIndicator(silentLogger());
    w.set('c', 'r1', () => [{ name: 'typing', afterMs: 0, show: () => Promise.reject(new Error('429')) }]);
    await expect(w.stopAll()).resolves.toBeUndefined();
  });
});
