/**
 * What a run is doing right now, so a platform with a status line (Slack's assistant threads) can say
 * more than "working": calling the model, reading the platform's history, running a tool, or parked on a question.
 */
export type WorkingActivity = 'thinking' | 'reading' | 'tool' | 'waiting';

import type { RunStep } from './run-step.js';

/** What the runtime shows while a run works (typing, reaction, status line with a Stop button). */
export interface WorkingStatus {
  readonly runId: string;
  /** The message that started the work, when there is one (reactions go on it). */
  readonly sourceMessageId?: string;
  /** Action id for a Stop button. */
  readonly stopActionId: string;
  /** The current step; absent when the run has just started. Adapters without a status line ignore it. */
  readonly activity?: WorkingActivity;
  /** The tool being run (with `reading` and `tool`), as the model sees it, e.g. `github__search_issues`. */
  readonly toolName?: string;
  /**
   * The run's steps so far (its tool calls and waits), in order, each as last updated. Adapters show them
   * their own way (Discord: a compact list in the working note; the console: a line per change); Slack
   * shows them as task cards in the streamed answer instead (`AnswerStream.showSteps`). Absent: none yet.
   */
  readonly steps?: readonly RunStep[];
}

/** Whether an adapter can currently receive and send; `detail` says what it is doing when not. */
export interface ConnectionState {
  readonly connected: boolean;
  readonly detail?: string;
  /** Where processes share one gateway connection (Discord on PostgreSQL): whether this one holds it. A standby is connected. */
  readonly gateway?: 'held' | 'standby';
}
