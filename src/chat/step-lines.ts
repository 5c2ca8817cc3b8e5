import type { RunStep } from './run-step.js';

/** Longest line a step takes in a compact list (Discord's working note, the console). */
const MAX_LINE = 120;

const ICONS: Record<RunStep['status'], string> = { running: '⚙️', done: '✅', failed: '❌', waiting: '⏸️' };

/** One step on one line: its state, its title, then its progress while running or its output once over. */
export function stepLine(step: RunStep): string {
  const extra = step.status === 'running' ? step.progress : step.output;
  const line = `${ICONS[step.status]} ${step.title}${extra ? ` — ${extra}` : ''}`;
  return line.length <= MAX_LINE ? line : `${line.slice(0, MAX_LINE - 1)}…`;
}

/**
 * The run's steps as a compact list of at most `max` lines: the latest steps, with a first line counting
 * the earlier ones left out, so a run of forty tool calls still fits in one short message.
 */
export function stepList(steps: readonly RunStep[], max = 8): string {
  const shown = steps.slice(-max);
  const hidden = steps.length - shown.length;
  return [...(hidden > 0 ? [`… ${hidden} earlier step${hidden === 1 ? '' : 's'}`] : []), ...shown.map(stepLine)].join(
    '\n',
  );
}
