import { describe, expect, it } from 'vitest';
import { startIdleHeapRelease, type HeapSignals } from '../../src/runtime/process/idle-heap-release.js';

const MB = 1024 * 1024;

/** A heap whose size and business the test sets, a collection that shrinks it to `live`, and a tick the test fires. */
function fakeHeap(committed: number) {
  const state = { committed, live: committed, busy: 0, collections: 0, nativeReleases: 0 };
  const signals: HeapSignals = {
    committed: () => state.committed,
    busyShare: () => state.busy,
    collect: () => {
      state.collections++;
      state.committed = state.live;
    },
    releaseNative: () => state.nativeReleases++,
  };
  let tick: () => void = () => undefined;
  let stopped = false;
  const later: { fn: () => void; ms: number }[] = [];
  const release = startIdleHeapRelease({
    signals,
    every: (fn) => {
      tick = fn;
      return { stop: () => (stopped = true) };
    },
    after: (fn, ms) => later.push({ fn, ms }),
  });
  return { state, tick: () => tick(), release, stopped: () => stopped, later };
}

describe('idle heap release', () => {
  it('collects once when the loop goes quiet after a burst grew the heap, then not again', () => {
    const heap = fakeHeap(40 * MB);
    heap.state.busy = 0.6;
    heap.state.committed = 190 * MB;
    heap.tick();
    expect(heap.state.collections).toBe(0);
    heap.state.busy = 0.001;
    heap.tick();
    expect(heap.state.collections).toBe(1);
    expect(heap.state.committed).toBe(40 * MB);
    heap.tick();
    heap.tick();
    expect(heap.state.collections).toBe(1);
  });

  it('hands native memory back a second after each collection, not before and not without one', () => {
    const heap = fakeHeap(40 * MB);
    heap.tick();
    expect(heap.later).toEqual([]);
    heap.state.committed = 190 * MB;
    heap.tick();
    expect(heap.state.collections).toBe(1);
    expect(heap.later.map((l) => l.ms)).toEqual([1000]);
    expect(heap.state.nativeReleases).toBe(0);
    heap.later[0]!.fn();
    expect(heap.state.nativeReleases).toBe(1);
  });

  it('never collects while the loop is busy, however large the heap', () => {
    const heap = fakeHeap(40 * MB);
    heap.state.busy = 0.05;
    heap.state.committed = 400 * MB;
    for (let i = 0; i < 5; i++) heap.tick();
    expect(heap.state.collections).toBe(0);
  });

  it('leaves a quiet heap alone when it grew by less than 16 MB since the last collection', () => {
    const heap = fakeHeap(40 * MB);
    heap.state.committed = 50 * MB;
    heap.tick();
    expect(heap.state.collections).toBe(0);
  });

  it('measures growth from where V8 itself shrank the heap to', () => {
    const heap = fakeHeap(100 * MB);
    heap.state.committed = 40 * MB;
    heap.tick();
    heap.state.committed = 60 * MB;
    heap.state.live = 45 * MB;
    heap.tick();
    expect(heap.state.collections).toBe(1);
  });

  it('stops its timer when stopped', () => {
    const heap = fakeHeap(40 * MB);
    heap.release.stop();
    expect(heap.stopped()).toBe(true);
  });
});
