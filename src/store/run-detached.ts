/** A commit callback's failure must not turn a committed transaction into a rejected one: it is rethrown on its own. */
export function runDetached(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    queueMicrotask(() => {
      throw err;
    });
  }
}
