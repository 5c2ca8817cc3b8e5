import type { RunStep, RunStepStatus, WorkingActivity } from '../chat/chat-adapter.js';
import { stepText } from '../chat/run-step.js';

/** One step of a run as the platform's status line shows it, and the run step (tool call) it is part of. */
export interface RunActivity {
  readonly activity: WorkingActivity;
  readonly toolName?: string;
  /** The tool call this activity belongs to: its id, where it stands and a short output; absent for model calls and control tools. */
  readonly step?: StepReport;
  /** The step posted a message in the conversation (an update): what streamed above it does not continue below it. */
  readonly posted?: boolean;
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
  /** With `waiting`: what the person is to do (default: approve the call; `answer`: answer its MCP server's question). */
  readonly waitingFor?: 'approval' | 'connect' | 'answer';
}

/** Where the runner reports its steps; the coordinator passes them on to the working status (the presence port). */
export type ActivityReport = (activity: RunActivity) => void;

/** The history tools read the platform itself, which people see as "reading", not as running a tool. */
const READING_TOOLS: ReadonlyMap<string, string> = new Map([
  ['read_thread', 'Reading the thread'],
  ['read_channel', 'Reading the channel'],
]);

/** Tools that steer the conversation (post an update, ask, finish): what they do shows by itself, so they are no step. */
const CONTROL_TOOLS: ReadonlySet<string> = new Set(['send_update', 'ask_user', 'task_complete']);

/** The activity of running one tool call (`callId`: the step it starts, unless the tool is a control tool). */
export function activityOfTool(toolName: string, callId?: string): RunActivity {
  const step = callId && !CONTROL_TOOLS.has(toolName);
  return {
    activity: READING_TOOLS.has(toolName) ? 'reading' : 'tool',
    toolName,
    ...(step ? { step: { id: callId, status: 'running' } } : {}),
  };
}

/**
 * The activity of a tool call that has ended, from its result: failed when the result says `ok: false`
 * (its error as the output), else done with the result's own short note where it has one.
 */
export function activityOfEndedTool(toolName: string, callId: string, result: unknown): RunActivity {
  const r = typeof result === 'object' && result !== null ? (result as Record<string, unknown>) : {};
  const failed = r.ok === false;
  const said = failed
    ? r.error
    : (['note', 'summary', 'text', 'content'].map((k) => r[k]).find((v) => typeof v === 'string') ??
      (typeof result === 'string' ? result : undefined));
  const output = typeof said === 'string' && said.trim() !== '' ? stepText(said) : undefined;
  if (CONTROL_TOOLS.has(toolName)) return activityOfTool(toolName);
  return {
    ...activityOfTool(toolName),
    step: { id: callId, status: failed ? 'failed' : 'done', ...(output ? { output } : {}) },
  };
}

/** The step a report is part of, as people see it (null for a model call). */
export function runStepOf(a: RunActivity): RunStep | null {
  if (!a.step) return null;
  const tool = a.toolName ?? 'a tool';
  const server = tool.split('__')[0];
  const waitingFor = a.step.waitingFor;
  const waiting =
    waitingFor === 'connect'
      ? `Waiting for you to connect ${server}`
      : waitingFor === 'answer'
        ? `Waiting for you to answer ${server}`
        : `Waiting for approval to run ${tool}`;
  const title = a.step.status === 'waiting' ? waiting : (READING_TOOLS.get(tool) ?? `Running ${tool}`);
  return {
    id: a.step.id,
    title,
    status: a.step.status,
    ...(a.step.output ? { output: a.step.output } : {}),
    ...(a.step.progress ? { progress: stepText(a.step.progress) } : {}),
  };
}

/** Least time between two progress updates of a run's step on the platform (each one is a platform call). */
export const PROGRESS_EVERY_MS = 1000;

/** A running call's progress reports, paced, that stop counting once the call has ended. */
export interface ProgressReports {
  /** What the tool said about how far it got: passed on unless one went out less than PROGRESS_EVERY_MS ago. */
  readonly report: (text: string) => void;
  /** The call ended: a late notification can no longer show it as running. */
  end(): void;
}

/**
 * Progress of tool call `callId` as its step (still running, with the tool's words), at most once per
 * PROGRESS_EVERY_MS: a server reporting every few milliseconds costs the platform one update a second.
 */
export function progressReports(
  report: ActivityReport,
  toolName: string,
  callId: string,
  now: () => number,
): ProgressReports {
  let last = Number.NEGATIVE_INFINITY;
  let ended = false;
  return {
    report(text) {
      const at = now();
      if (ended || text.trim() === '' || at - last < PROGRESS_EVERY_MS) return;
      last = at;
      report({ ...activityOfTool(toolName), step: { id: callId, status: 'running', progress: text } });
    },
    end: () => void (ended = true),
  };
}
