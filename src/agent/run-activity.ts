import type { WorkingActivity } from '../chat/chat-adapter.js';

/** One step of a run as the platform's status line shows it. */
export interface RunActivity {
  readonly activity: WorkingActivity;
  readonly toolName?: string;
}

/** Where the runner reports its steps; the coordinator passes them on to the working status (the presence port). */
export type ActivityReport = (activity: RunActivity) => void;

/** The history tools read the platform itself, which people see as "reading", not as running a tool. */
const READING_TOOLS: ReadonlySet<string> = new Set(['read_thread', 'read_channel']);

/** The activity of running one tool call. */
export function activityOfTool(toolName: string): RunActivity {
  return { activity: READING_TOOLS.has(toolName) ? 'reading' : 'tool', toolName };
}

/**
 * Wraps a report so only changes go through: a run calling the model ten times in a row tells the
 * platform once, keeping status updates cheap (each one is a Web API call on Slack).
 */
export function onlyChanges(report: ActivityReport): ActivityReport {
  let last: string | null = null;
  return (a) => {
    const key = `${a.activity}:${a.toolName ?? ''}`;
    if (key === last) return;
    last = key;
    report(a);
  };
}
