import { executionAsyncId } from 'node:async_hooks';

/**
 * Whether the process pays for promise hooks now (an enabled AsyncLocalStorage or async hook on Node 20): a
 * promise reaction then runs under an async id of its own; without hooks it runs under id 0.
 */
export async function promiseHooksOn(): Promise<boolean> {
  return (await Promise.resolve().then(() => executionAsyncId())) !== 0;
}
