/**
 * Button action ids carry everything needed to act on a click, so adapters decode them
 * without state: `errand:stop:<runId>`, `errand:answer:<runId>:<optionIndex>` and
 * `errand:schedule:<pause|resume|delete|edit>:<id>` / `errand:schedule:new`.
 */
export type ScheduleOp = 'pause' | 'resume' | 'delete' | 'edit';

export type ActionRef = { kind: 'stop'; runId: string } | { kind: 'answer'; runId: string; option: number };

/** A schedule button: `new` carries no id. */
export type ScheduleActionRef = { op: ScheduleOp; scheduleId: number } | { op: 'new'; scheduleId: null };

const PREFIX = 'errand';
const SCHEDULE_OPS: readonly string[] = ['pause', 'resume', 'delete', 'edit'];

export function stopActionId(runId: string): string {
  return `${PREFIX}:stop:${runId}`;
}

export function answerActionId(runId: string, option: number): string {
  return `${PREFIX}:answer:${runId}:${option}`;
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
  if (parts[1] === 'answer' && parts.length === 4 && parts[2] && /^\d+$/.test(parts[3] ?? '')) {
    return { kind: 'answer', runId: parts[2], option: Number(parts[3]) };
  }
  return null;
}

/** Decodes a schedule button's id; null when it is not one. */
export function parseScheduleActionId(actionId: string): ScheduleActionRef | null {
  const parts = actionId.split(':');
  if (parts[0] !== PREFIX || parts[1] !== 'schedule') return null;
  if (parts.length === 3 && parts[2] === 'new') return { op: 'new', scheduleId: null };
  if (parts.length === 4 && SCHEDULE_OPS.includes(parts[2] ?? '') && /^\d{1,15}$/.test(parts[3] ?? '')) return { op: parts[2] as ScheduleOp, scheduleId: Number(parts[3]) };
  return null;
}
