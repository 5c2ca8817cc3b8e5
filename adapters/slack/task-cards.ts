import type { ChatStartStreamArguments } from '@slack/web-api';
import type { RunStep } from '../../src/chat/chat-adapter.js';
import { neutraliseSpecialMentions } from './special-mentions.js';

/** One streaming chunk, as @slack/web-api types it. */
export type StreamChunk = NonNullable<ChatStartStreamArguments['chunks']>[number];
/** Slack's task card chunk. */
export type TaskUpdateChunk = Extract<StreamChunk, { type: 'task_update' }>;

/** Slack cuts a card's title near 256 characters; Errand's titles stay well under. */
const MAX_TITLE = 250;

/** The task cards of one streamed message: the run's steps as Slack's `task_update` chunks, each sent when it changed. */
export interface TaskCards {
  /** Takes the run's steps as last reported (the steps this message shows). */
  update(steps: readonly RunStep[]): void;
  /** Whether a card has changed since it was last sent. */
  pending(): boolean;
  /** The chunks of the cards that changed, in order, now counted as sent. */
  take(): TaskUpdateChunk[];
  /**
   * Ends every card still open, so none is left spinning once the stream stops: `done` closes running
   * cards as complete and leaves a card waiting on a person as it is; `stopped` marks both as stopped.
   */
  close(how: 'done' | 'stopped'): void;
  /** Forgets every card (the workspace refused them): nothing is pending any more. */
  drop(): void;
}

const cut = (text: string) => (text.length <= MAX_TITLE ? text : `${text.slice(0, MAX_TITLE - 1)}…`);

/**
 * A step as a card: running → `in_progress` (its progress after the title), done → `complete`, failed → `error`,
 * waiting → `pending`. A tool's words (its progress, its output) are no more able to ping a crowd than any other text
 * Errand posts: their special mentions are neutralised.
 */
export function taskChunkOf(step: RunStep): TaskUpdateChunk {
  const status = ({ running: 'in_progress', done: 'complete', failed: 'error', waiting: 'pending' } as const)[
    step.status
  ];
  const title = step.status === 'running' && step.progress ? `${step.title} (${step.progress})` : step.title;
  return {
    type: 'task_update',
    id: step.id,
    title: cut(neutraliseSpecialMentions(title)),
    status,
    ...(step.output ? { output: neutraliseSpecialMentions(step.output) } : {}),
  };
}

export function createTaskCards(): TaskCards {
  const steps = new Map<string, RunStep>();
  const sent = new Map<string, string>();
  const chunks = () => [...steps.values()].map(taskChunkOf);
  const changed = (c: TaskUpdateChunk) => sent.get(c.id) !== JSON.stringify(c);
  return {
    update(list) {
      for (const step of list) steps.set(step.id, step);
    },
    pending: () => chunks().some(changed),
    take() {
      const due = chunks().filter(changed);
      for (const c of due) sent.set(c.id, JSON.stringify(c));
      return due;
    },
    close(how) {
      for (const [id, step] of steps) {
        if (step.status === 'running')
          steps.set(id, {
            ...step,
            status: how === 'done' ? 'done' : 'failed',
            ...(how === 'stopped' ? { output: 'Stopped' } : {}),
          });
        else if (step.status === 'waiting' && how === 'stopped')
          steps.set(id, { ...step, status: 'failed', output: 'Stopped' });
      }
    },
    drop() {
      steps.clear();
      sent.clear();
    },
  };
}
