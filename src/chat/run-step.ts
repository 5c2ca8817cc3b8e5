/**
 * One step of a run as people see it: a tool call (what it does in plain words, then how it went) or a
 * wait on a person (an approval). Each platform shows steps its own way: Slack as task cards inside the
 * streamed answer, Discord as a compact list in the working note, the console as a line per change.
 */
export interface RunStep {
  /** Stable across the step's updates (the tool call's id): a platform updates the step it showed. */
  readonly id: string;
  /** Plain words, e.g. "Reading the thread", "Running linear__create_issue", "Waiting for approval to run x". */
  readonly title: string;
  /** `waiting`: on a person (an approval); the step is not running and not over. */
  readonly status: RunStepStatus;
  /** How it ended, in a few words (a failure's reason, a short result); absent while it runs. */
  readonly output?: string;
  /** What the tool last reported while running (MCP progress, e.g. "3/10 indexing"). */
  readonly progress?: string;
}

export type RunStepStatus = 'running' | 'done' | 'failed' | 'waiting';

/** Longest `output` or `progress` a platform is handed (Slack takes 256 characters in a card's fields). */
export const MAX_STEP_TEXT = 200;

/** `text` on one line and cut to MAX_STEP_TEXT characters (with an ellipsis), for a step's output or progress. */
export function stepText(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= MAX_STEP_TEXT) return line;
  const cut = line.slice(0, MAX_STEP_TEXT - 1);
  const code = cut.charCodeAt(cut.length - 1);
  return `${code >= 0xd800 && code <= 0xdbff ? cut.slice(0, -1) : cut}…`;
}
