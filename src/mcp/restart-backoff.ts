/** How long to wait before restart attempt `attempt` (0-based): 1 s, 2 s, 4 s … capped at `maxMs`. */
export type RestartBackoff = (attempt: number) => number;

/**
 * Exponential backoff for restarting a crashed server: quick enough that a one-off crash is barely noticed,
 * slow enough that a server crashing in a loop costs one spawn a minute.
 */
export function exponentialBackoff(baseMs = 1000, maxMs = 60_000): RestartBackoff {
  return (attempt) => Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
}
