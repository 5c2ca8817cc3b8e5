/**
 * The synchronous twin of an asynchronous store interface: every `Promise<R>` method returns `R`.
 * better-sqlite3 answers synchronously, so each SQLite store is written against this type (its
 * prepared statements run inline) and the transaction gate wraps it into the core's async interface.
 */
export type Synchronous<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : T[K];
};

/** Runs a synchronous call on behalf of the async interface; the gate decides when. */
export type CallRunner = <R>(call: () => R) => Promise<R>;

/**
 * The async interface over a synchronous implementation: each method becomes one call through
 * `run` (at once, or after the transaction that holds the connection ends). Members that are not
 * functions, and those named in `direct` (pure helpers that touch no database), are passed through.
 */
export function gated<T extends object>(impl: Synchronous<T>, run: CallRunner, direct: readonly (keyof T)[] = []): T {
  const out: Record<string, unknown> = {};
  const source = impl as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    const member = source[key];
    if (typeof member !== 'function' || (direct as readonly string[]).includes(key)) {
      out[key] = typeof member === 'function' ? (member as (...a: unknown[]) => unknown).bind(impl) : member;
      continue;
    }
    const fn = member as (...a: unknown[]) => unknown;
    out[key] = (...args: unknown[]) => run(() => fn.apply(impl, args));
  }
  return out as T;
}
