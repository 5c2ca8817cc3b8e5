import { runStepOf, type ActivityReport, type RunActivity } from '../../runs/run-activity.js';
import { stopActionId } from '../../chat/action-id.js';
import type { AnswerStream, RunStep, StreamEnd, WorkingStatus } from '../../chat/chat-adapter.js';
import type { ConversationRef } from '../../chat/conversation-ref.js';
import type { Presence } from '../../chat/presence.js';
import type { TaskRow } from '../../db/schema.js';
import type { Logger } from '../../logger.js';

/**
 * A run's "working" status on its platform (reaction, typing, Slack's status line, a Stop button): shown at
 * the launch, updated with each step, cleared when the run ends. A failure to show it is logged, never a
 * reason to fail the run.
 */
export interface RunWorkingStatus {
  /** Shows that the run has started. */
  show(): void;
  /** Each step's activity; only changes reach the platform, so it stays cheap. */
  readonly activity: ActivityReport;
  /**
   * Lets the run's steps show inside a live stream where the platform's stream can (Slack's task cards):
   * `open` opens one (recorded like an answer preview, so a restart takes it back); `shuttingDown` says
   * whether an unfinished one is removed at the end (the restart answers again) rather than closed.
   */
  streamSteps(open: () => AnswerStream | null, shuttingDown: () => boolean, now: () => number): void;
  /** The stream showing the steps since the last answer, handed over so the next answer continues in it under them; null when none is open. */
  takeStream(): AnswerStream | null;
  /**
   * Closes the stream still showing steps (no answer took it: the run stopped, failed, or parked on an
   * approval), awaited before the run is settled so a shutdown does not leave it open. Resolves once done; never rejects.
   */
  closeSteps(): Promise<void>;
  /** Takes the status away: the run has ended (or stopped working here); a stream still showing steps is closed. */
  clear(): void;
}

/**
 * Slack ends a stream about five minutes after it started, whatever is appended: a steps stream older than
 * this is not handed to an answer, and the next step goes on in a new one.
 */
export const MAX_STEPS_STREAM_AGE_MS = 4 * 60_000;

/** Puts `step` in `list` (replacing its earlier state); false when nothing changed. */
function upsert(list: RunStep[], step: RunStep): boolean {
  const at = list.findIndex((s) => s.id === step.id);
  if (at < 0) {
    list.push(step);
    return true;
  }
  if (JSON.stringify(list[at]) === JSON.stringify(step)) return false;
  list[at] = step;
  return true;
}

/**
 * The working status of run `runId`, shown through the presence port (the only way status reaches a
 * platform). The status line changes only when the activity does; every change of a step goes to the
 * platform with the whole step list (Discord's note, the console), and, where a stream can show them,
 * to the steps stream opened at the first step and handed to the next answer (`takeStream`).
 */
export function runWorkingStatus(
  presence: Pick<Presence, 'setWorking'>,
  ref: ConversationRef,
  runId: string,
  task: TaskRow | null,
  logger: Logger,
): RunWorkingStatus {
  const working: WorkingStatus = {
    runId,
    stopActionId: stopActionId(runId),
    ...(task?.sourceMessageId ? { sourceMessageId: task.sourceMessageId } : {}),
  };
  const showWorking = (status: WorkingStatus) =>
    presence.setWorking(ref, status).catch((err: unknown) => logger.warn({ err }, 'showing the working status failed'));
  const steps: RunStep[] = [];
  let line: RunActivity | null = null;
  let opener: (() => AnswerStream | null) | null = null;
  let shuttingDown = () => false;
  let now = () => 0;
  let stream: AnswerStream | null = null;
  let openedAt = 0;
  const tooOld = () => stream !== null && now() - openedAt > MAX_STEPS_STREAM_AGE_MS;
  let streamed: RunStep[] = [];

  const showInStream = (step: RunStep) => {
    if (tooOld()) {
      // Ended as shown (its running steps go on in the next one), before Slack ends it.
      const old = stream!;
      stream = null;
      streamed = streamed.filter((x) => x.status === 'running' || x.status === 'waiting');
      track(old.stop('done'));
    }
    upsert(streamed, step);
    if (!stream && opener) {
      const opened = opener();
      openedAt = now();
      if (opened?.showSteps) stream = opened;
      // Nothing was shown yet: a stream that cannot show steps is left unused, and not opened again.
      else opener = null;
    }
    stream?.showSteps?.(streamed);
  };
  const closing = new Set<Promise<void>>();
  /** A stream being closed: awaited by `closeSteps`, its failure logged. */
  const track = (stopping: Promise<void>): Promise<void> => {
    const done = stopping.catch((err: unknown) => logger.warn({ err }, 'closing the steps of a run failed'));
    closing.add(done);
    void done.finally(() => closing.delete(done));
    return done;
  };
  /** Ends the stream showing steps (if any); the next step opens a new one. */
  const endStream = (): Promise<void> => {
    const s = stream;
    stream = null;
    const cards = streamed;
    streamed = [];
    if (!s) return Promise.resolve();
    const how: StreamEnd = shuttingDown() ? 'discard' : cards.some((x) => x.status === 'running') ? 'stopped' : 'done';
    return track(s.stop(how));
  };
  const activity: ActivityReport = (a) => {
    // A message posted below the stream: the answer must not continue above it, later steps go below it.
    if (a.posted) void endStream();
    const lineChanged = line === null || line.activity !== a.activity || line.toolName !== a.toolName;
    if (lineChanged) line = { activity: a.activity, ...(a.toolName ? { toolName: a.toolName } : {}) };
    const step = runStepOf(a);
    const stepChanged = step !== null && upsert(steps, step);
    if (!lineChanged && !stepChanged) return;
    void showWorking({ ...working, ...line!, ...(steps.length > 0 ? { steps: [...steps] } : {}) });
    if (stepChanged) showInStream(step);
  };
  return {
    show: () => void showWorking(working),
    activity,
    streamSteps(open, isShuttingDown, clock) {
      opener = open;
      shuttingDown = isShuttingDown;
      now = clock;
    },
    takeStream() {
      if (tooOld()) {
        void endStream();
        return null;
      }
      const s = stream;
      stream = null;
      streamed = [];
      return s;
    },
    async closeSteps() {
      opener = null;
      await endStream();
      while (closing.size > 0) await Promise.all([...closing]);
    },
    clear: () => {
      opener = null;
      void endStream();
      void presence
        .setWorking(ref, null)
        .catch((err: unknown) => logger.warn({ err }, 'clearing the working status failed'));
    },
  };
}
