/**
 * Button action ids carry everything needed to act on a click, so adapters decode them
 * without state: `errand:stop:<runId>` and `errand:answer:<runId>:<optionIndex>`.
 */
export type ActionRef = { kind: 'stop'; runId: string } | { kind: 'answer'; runId: string; option: number };

const PREFIX = 'errand';

export function stopActionId(runId: string): string {
  return `${PREFIX}:stop:${runId}`;
}

export function answerActionId(runId: string, option: number): string {
  return `${PREFIX}:answer:${runId}:${option}`;
}

/** Decodes an action id; null when it is not one of Errand's. */
export function parseActionId(actionId: string): ActionRef | null {
  const parts = actionId.split(':');
  if (parts[0] !== PREFIX) return null;
  if (parts[1] === 'stop' && parts.length === 3 && parts[2]) return { kind: 'stop', runId: parts[2] };
  if (parts[1] === 'answer' && parts.length === 4 && parts[2] && /^\d+$/.test(parts[3] ?? '')) {
    return { kind: 'answer', runId: parts[2], option: Number(parts[3]) };
  }
  return null;
}
