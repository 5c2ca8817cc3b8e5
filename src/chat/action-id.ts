/**
 * Button action ids carry everything needed to act on a click, so adapters decode them
 * without state: `errand:stop:<runId>`, `errand:answer:<runId>:<questionId>:<optionIndex>` and
 * `errand:schedule:<pause|resume|delete|edit>:<id>` / `errand:schedule:new`.
 */
export type ScheduleOp = 'pause' | 'resume' | 'delete' | 'edit';

/**
 * A decoded click. An answer names its question (the `id` of the run's PendingQuestion), so a button
 * left on an earlier question of the same run cannot answer the one the run waits on now. Buttons
 * posted before answers named their question (`errand:answer:<runId>:<option>`) decode with
 * `questionId: null`; the dispatcher refuses them, since nothing says which question they belong to.
 */
export type ActionRef =
  { kind: 'stop'; runId: string } | { kind: 'answer'; runId: string; questionId: string | null; option: number };

/** A schedule button: `new` carries no id. */
export type ScheduleActionRef = { op: ScheduleOp; scheduleId: number } | { op: 'new'; scheduleId: null };

const PREFIX = 'errand';
const SCHEDULE_OPS: readonly string[] = ['pause', 'resume', 'delete', 'edit'];

export function stopActionId(runId: string): string {
  return `${PREFIX}:stop:${runId}`;
}

/** What a question id looks like in an action id: short, and no `:` (Discord allows 100 characters in all). */
export const QUESTION_ID_PATTERN = /^[0-9a-z]{1,16}$/;

/** An option button of one question: clicking it answers that question and no other. */
export function answerActionId(runId: string, questionId: string, option: number): string {
  if (!QUESTION_ID_PATTERN.test(questionId))
    throw new Error(`question id "${questionId}" is not 1–16 lowercase letters or digits`);
  return `${PREFIX}:answer:${runId}:${questionId}:${option}`;
}

/** A schedule button; `new` opens an empty schedule form. */
export function scheduleActionId(op: ScheduleOp, scheduleId: number): string;
export function scheduleActionId(op: 'new'): string;
export function scheduleActionId(op: ScheduleOp | 'new', scheduleId?: number): string {
  return op === 'new' ? `${PREFIX}:schedule:new` : `${PREFIX}:schedule:${op}:${scheduleId}`;
}

/** Decodes an action id; null when it is not one of Errand's. */
export function parseActionId(actionId: string): ActionRef | null {
  const parts = actionId.split(':');
  if (parts[0] !== PREFIX) return null;
  if (parts[1] === 'stop' && parts.length === 3 && parts[2]) return { kind: 'stop', runId: parts[2] };
  if (
    parts[1] === 'answer' &&
    parts.length === 5 &&
    parts[2] &&
    QUESTION_ID_PATTERN.test(parts[3] ?? '') &&
    /^\d+$/.test(parts[4] ?? '')
  ) {
    return { kind: 'answer', runId: parts[2], questionId: parts[3]!, option: Number(parts[4]) };
  }
  // Posted before buttons named their question: still decoded, so the click gets a clear refusal.
  if (parts[1] === 'answer' && parts.length === 4 && parts[2] && /^\d+$/.test(parts[3] ?? '')) {
    return { kind: 'answer', runId: parts[2], questionId: null, option: Number(parts[3]) };
  }
  return null;
}

/** Decodes a schedule button's id; null when it is not one. */
export function parseScheduleActionId(actionId: string): ScheduleActionRef | null {
  const parts = actionId.split(':');
  if (parts[0] !== PREFIX || parts[1] !== 'schedule') return null;
  if (parts.length === 3 && parts[2] === 'new') return { op: 'new', scheduleId: null };
  if (parts.length === 4 && SCHEDULE_OPS.includes(parts[2] ?? '') && /^\d{1,15}$/.test(parts[3] ?? ''))
    return { op: parts[2] as ScheduleOp, scheduleId: Number(parts[3]) };
  return null;
}

/** A Forget button of `/memory`: clicking it is the command `/memory forget <id>` from whoever clicked, where they clicked. */
export function memoryForgetActionId(memoryId: number): string {
  return `${PREFIX}:memory:forget:${memoryId}`;
}

/** The memory a Forget button names; null when the id is not one. */
export function parseMemoryForgetActionId(actionId: string): number | null {
  const match = /^errand:memory:forget:(\d{1,15})$/.exec(actionId);
  return match ? Number(match[1]) : null;
}
