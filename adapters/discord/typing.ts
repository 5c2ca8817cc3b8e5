import type { RunStep, WorkingStatus } from '../../src/chat/chat-adapter.js';
import { stepList } from '../../src/chat/step-lines.js';
import type { Logger } from '../../src/logger.js';
import {
  createWorkingIndicator as createSharedIndicator,
  type WorkingSignal,
} from '../../src/chat/working-indicator.js';

/** Discord shows "typing…" for 10 s per request; refreshing every 8 s keeps it steady. */
export const TYPING_INTERVAL_MS = 8000;
/**
 * Answers quicker than this never show "typing…" (as on Slack, where the working reaction waits as
 * long): the request would only compete with the answer for the event loop and the REST queue.
 */
export const TYPING_DELAY_MS = 400;
/** Runs that finish quickly never show the Stop notice: it appears only after this long. */
export const WORKING_NOTICE_DELAY_MS = 2000;
/** Least time between two edits of the working note as steps change (Discord allows about 5 edits per 5 s per channel). */
export const STEP_EDIT_INTERVAL_MS = 1500;

const WORKING_TEXT = '⏳ Working… press **Stop** to stop me.';

/** The working note's text: the notice, then the run's steps as a compact list. */
export function workingNoteText(steps: readonly RunStep[] | undefined): string {
  return steps && steps.length > 0 ? `${WORKING_TEXT}\n${stepList(steps)}` : WORKING_TEXT;
}

export interface WorkingIndicatorDeps {
  sendTyping(channelId: string): Promise<void>;
  /** Posts the "Working…" notice (`text`) with a Stop button; resolves to its message id. */
  postNotice(channelId: string, stopActionId: string, text: string): Promise<string>;
  /** Replaces the notice's text (the run's steps changed), keeping its Stop button. */
  editNotice(channelId: string, messageId: string, stopActionId: string, text: string): Promise<void>;
  deleteNotice(channelId: string, messageId: string): Promise<void>;
  logger: Logger;
  typingIntervalMs?: number;
  /** Wait before the first typing request (0: at once). */
  typingDelayMs?: number;
  noticeDelayMs?: number;
  /** Least time between two edits of the notice (default STEP_EDIT_INTERVAL_MS). */
  editIntervalMs?: number;
}

export interface WorkingIndicator {
  /** Starts (status) or ends (null) the indicator for a channel; returns at once, never throws. */
  set(channelId: string, status: WorkingStatus | null): void;
  /** Ends every indicator and removes posted notices. */
  stopAll(): Promise<void>;
}

/**
 * What Discord users see while Errand works: the typing indicator (once the run took longer than a quick
 * answer), refreshed while the run is active, and — only when the run is still going after a couple of
 * seconds — a small "Working…" message with a Stop button, removed when the work ends. The note lists the
 * run's steps as they change (a compact list, edited at most once per `editIntervalMs`, the latest state
 * winning). Built on the shared skeleton in src/chat/working-indicator.ts; nothing here is awaited by the caller.
 */
export function createWorkingIndicator(deps: WorkingIndicatorDeps): WorkingIndicator {
  const indicator = createSharedIndicator(deps.logger);
  const typingEvery = deps.typingIntervalMs ?? TYPING_INTERVAL_MS;
  const typingAfter = deps.typingDelayMs ?? TYPING_DELAY_MS;
  const noticeAfter = deps.noticeDelayMs ?? WORKING_NOTICE_DELAY_MS;
  const editEvery = deps.editIntervalMs ?? STEP_EDIT_INTERVAL_MS;
  /** Per channel: the run shown, its latest steps, the note once posted, and the edit waiting for its turn. */
  const notes = new Map<
    string,
    {
      runId: string;
      stopActionId: string;
      steps: readonly RunStep[] | undefined;
      id: string | null;
      shownText: string;
      lastEditAt: number;
      timer: NodeJS.Timeout | null;
    }
  >();
  const edit = (channelId: string) => {
    const note = notes.get(channelId);
    if (!note || note.id === null || note.timer) return;
    const wait = note.lastEditAt + editEvery - Date.now();
    const run = () => {
      note.timer = null;
      if (notes.get(channelId) !== note || note.id === null) return;
      const text = workingNoteText(note.steps);
      if (text === note.shownText) return;
      note.shownText = text;
      note.lastEditAt = Date.now();
      deps
        .editNotice(channelId, note.id, note.stopActionId, text)
        .catch((err: unknown) => deps.logger.warn({ err }, 'updating the working note failed'));
    };
    if (wait <= 0) run();
    else note.timer = setTimeout(run, wait).unref();
  };
  const forget = (channelId: string) => {
    const note = notes.get(channelId);
    if (note?.timer) clearTimeout(note.timer);
    notes.delete(channelId);
  };
  return {
    set(channelId, status) {
      const current = notes.get(channelId);
      if (status && current?.runId === status.runId) {
        current.steps = status.steps;
        edit(channelId);
      } else {
        forget(channelId);
        if (status)
          notes.set(channelId, {
            runId: status.runId,
            stopActionId: status.stopActionId,
            steps: status.steps,
            id: null,
            shownText: '',
            lastEditAt: Date.now(),
            timer: null,
          });
      }
      indicator.set(channelId, status?.runId ?? null, () => [
        {
          name: 'typing indicator',
          afterMs: typingAfter,
          everyMs: typingEvery,
          show: () => deps.sendTyping(channelId).then(() => null),
        },
        {
          name: 'working notice',
          afterMs: noticeAfter,
          show: async () => {
            const note = notes.get(channelId);
            const text = workingNoteText(note?.steps);
            const id = await deps.postNotice(channelId, status!.stopActionId, text);
            if (note && notes.get(channelId) === note) {
              note.id = id;
              note.shownText = text;
              note.lastEditAt = Date.now();
              edit(channelId);
            }
            return id;
          },
          hide: (id: string) => deps.deleteNotice(channelId, id),
        } satisfies WorkingSignal<string>,
      ]);
    },
    stopAll: () => {
      for (const channelId of [...notes.keys()]) forget(channelId);
      return indicator.stopAll();
    },
  };
}
