/** Polls `check` until it returns a truthy value (or stops throwing); fails with the last error after `timeoutMs`. */
export async function waitFor<T>(check: () => T | Promise<T>, timeoutMs = 5000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = null;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
      last = null;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      if (last instanceof Error) throw last;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}
