import type { MemoryAdapter } from '../tests/fakes/memory-adapter.js';

/** Waits for the next post on the in-memory adapter: one message through the pipeline, end to end. */
export function nextPost(adapter: MemoryAdapter): Promise<void> {
  return new Promise((resolve) => {
    adapter.onPost = () => {
      adapter.onPost = null;
      resolve();
    };
  });
}
