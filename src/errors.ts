/**
 * The small error model: one base class with a machine-readable `code`, a few subclasses.
 * Expected outcomes (bad tool arguments, unknown ids) are returned as values, not thrown;
 * these errors are for what the caller cannot reasonably handle inline.
 */
export type ErrandErrorCode =
  | 'config_invalid'
  | 'adapter_failed'
  | 'target_gone'
  | 'rate_limited'
  | 'validation_failed'
  | 'model_failed'
  | 'run_aborted'
  | 'conversation_busy'
  | 'run_fenced'
  | 'database_failed'
  | 'sign_in_unavailable';

/** Base error: branch on `code`, never on `message`. */
export class ErrandError extends Error {
  readonly code: ErrandErrorCode;

  constructor(code: ErrandErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Start-up configuration is missing or malformed; `problems` holds one readable line each. */
export class ConfigError extends ErrandError {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super('config_invalid', `Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.problems = problems;
  }
}

/** A chat platform call failed in a way the adapter could not absorb. */
export class AdapterError extends ErrandError {
  constructor(
    message: string,
    options?: { cause?: unknown },
    code: Extract<ErrandErrorCode, 'adapter_failed' | 'target_gone'> = 'adapter_failed',
  ) {
    super(code, message, options);
  }
}

/**
 * The place a post goes to is gone for good (deleted or archived channel or thread, the bot
 * removed or refused access): retrying cannot help, so the run working there stops and a schedule
 * aiming there counts a failure. Adapters map their platform's permanent errors to it; the core
 * branches on the class (or code `target_gone`), never on the message. `platformCode` is the
 * platform's own error (`is_archived`, `10003`) for logs and the recorded reason.
 */
export class TargetGoneError extends AdapterError {
  readonly platformCode: string;

  constructor(message: string, platformCode: string, options?: { cause?: unknown }) {
    super(message, options, 'target_gone');
    this.platformCode = platformCode;
  }
}

/** True when `err` says the post target is gone for good (see TargetGoneError). */
export function isTargetGone(err: unknown): err is TargetGoneError {
  return err instanceof TargetGoneError;
}

/** A platform or model answered 429; `retryAfterMs` says when to try again. */
export class RateLimitError extends ErrandError {
  readonly retryAfterMs: number;

  constructor(message: string, retryAfterMs: number, options?: { cause?: unknown }) {
    super('rate_limited', message, options);
    this.retryAfterMs = retryAfterMs;
  }
}

/** Input from outside did not match its schema. */
export class ValidationError extends ErrandError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('validation_failed', message, options);
  }
}

/**
 * The model endpoint failed after retries; `cause` holds the SDK error. `message` is a plain
 * sentence fit for the chat thread; `operatorHint` names the setting to check and goes to the log
 * only, because people in a channel cannot fix OPENAI_BASE_URL.
 */
export class ModelError extends ErrandError {
  /** True when a later attempt may succeed (timeouts, 429, 5xx). */
  readonly transient: boolean;
  /** For the operator: what failed (with the HTTP status) and which setting to check. */
  readonly operatorHint: string;

  constructor(userText: string, transient: boolean, options?: { cause?: unknown; operatorHint?: string }) {
    super('model_failed', userText, options);
    this.transient = transient;
    this.operatorHint = options?.operatorHint ?? userText;
  }
}

/** The database cannot be opened or written; the message names DATABASE_PATH and the fix. */
export class DatabaseError extends ErrandError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('database_failed', message, options);
  }
}

/** A run was stopped through its AbortController. */
export class RunAbortedError extends ErrandError {
  constructor(message = 'The run was stopped.') {
    super('run_aborted', message);
  }
}
