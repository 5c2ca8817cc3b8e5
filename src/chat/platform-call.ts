import type { z } from 'zod';
import { AdapterError, TargetGoneError } from '../errors.js';

/** How an adapter reads one failed platform call. */
export interface PlatformFailure {
  /** Rethrow the error untouched (e.g. a 429 the outbound queue waits out). */
  readonly passThrough?: boolean;
  /** The platform's own error code, when it gave one. */
  readonly code: string | null;
  /** What to say about it: the code with the platform's message. */
  readonly detail: string;
  /** The channel or thread cannot take the bot's posts and will not by itself. */
  readonly targetGone: boolean;
}

/**
 * Runs one platform API call and validates the part of the answer Errand uses. Failures become
 * AdapterError (TargetGoneError when the place is gone for good) naming the call and the platform's
 * error, with the SDK error as cause, so the core branches on error codes, never on SDK types.
 */
export async function callPlatform<T>(
  what: string,
  call: () => Promise<unknown>,
  schema: z.ZodType<T>,
  classify: (err: unknown) => PlatformFailure,
): Promise<T> {
  let raw: unknown;
  try {
    raw = await call();
  } catch (err) {
    const failure = classify(err);
    if (failure.passThrough) throw err;
    if (failure.targetGone)
      throw new TargetGoneError(
        `${what} failed (${failure.detail}): the place cannot take posts`,
        failure.code ?? 'unknown',
        { cause: err },
      );
    throw new AdapterError(`${what} failed (${failure.detail})`, { cause: err });
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    throw new AdapterError(`${what} answered in an unexpected shape: ${parsed.error.message}`, { cause: parsed.error });
  return parsed.data;
}
