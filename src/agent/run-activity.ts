import type { RunStep, RunStepStatus, WorkingActivity } from '../chat/chat-adapter.js';
import { stepText } from '../chat/run-step.js';

/** One step of a run as the platform's status line shows it, and the run step (tool call) it is part of. */
export interface RunActivity {
  readonly activity: WorkingActivity;
  readonly toolName?: string;
  /** The tool call this activity belongs to: its id, where it stands and a short output; absent for model calls. */
  readonly step?: StepReport;
}

/** Where one tool call stands, as the runner reports it. */
export interface StepReport {
  /** The tool call's id. */
  readonly id: string;
  readonly status: RunStepStatus;
  /** A failure's reason or a short result, once over. */
  readonly output?: string;
  /** What the tool last said while running (MCP progress). */
  readonly progress?: string;
}

/** Where the runner reports its steps; the coordinator passes them on to the working status (the presence port). */
export type ActivityReport = (activity: RunActivity) => void;

/** The history tools read the platform itself, which people see as "reading", not as running a tool. */
const READING_TOOLS: ReadonlyMap<string, string> = new Map([
  ['read_thread', 'Reading the thread'],
  ['read_channel', 'Reading the channel'],
]);

/** The activity of running one tool call (`callId`: the step it starts). */
export function activityOfTool(toolName: string, callId?: string): RunActivity {
  return { activity: READING_TOOLS.has(toolName) ? 'reading' : 'tool', toolName, ...(callId ? { step: { id: callId, status: 'running' } } : {}) };
}

/**
 * The activity of a tool call that has ended, from its result: failed when the result says `ok: false`
 * (its error as the output), else done with the result's own short note where it has one.
 */
export function activityOfEndedTool(toolName: string, callId: string, result: unknown): RunActivity {
  const r = typeof result === 'object' && result !== null ? (result as Record<string, unknown>) : {};
  const failed = r.ok === false;
  const said = failed ? r.error : (['note', 'summary', 'text'].map((k) => r[k]).find((v) => typeof v === 'string') ?? (typeof result === 'string' ? result : undefined));
  const output = typeof said === 'string' && said.trim() !== '' ? stepText(said) : undefined;
  return { ...activityOfTool(toolName), step: { id: callId, status: failed ? 'failed' : 'done', ...(output ? { output } : {}) } };
}

/** The step a report is part of, as people see it (null for a model call). */
export function runStepOf(a: RunActivity): RunStep | null {
  if (!a.step) return null;
  const tool = a.toolName ?? 'a tool';
  const title = a.step.status === 'waiting' ? `Waiting for approval to run ${tool}` : (READING_TOOLS.get(tool) ?? `Running ${tool}`);
  return { id: a.step.id, title, status: a.step.status, ...(a.step.output ? { output: a.step.output } : {}), ...(a.step.progress ? { progress: stepText(a.step.progress) } : {}) };
}
