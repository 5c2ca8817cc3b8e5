import { z } from 'zod';
import type { WorkingStatus } from '../../src/chat/chat-adapter.js';
import { conversationKey, type ConversationRef } from '../../src/chat/conversation-ref.js';
import type { Logger } from '../../src/logger.js';
import { isDmChannel } from './slack-thread-id.js';

/** Slack caps a thread title; a longer first line is cut with an ellipsis. */
const MAX_TITLE = 100;

/** The `assistant_thread_started` / `assistant_thread_context_changed` payload's part Errand reads. */
export const assistantThreadEventSchema = z.object({
  assistant_thread: z.object({
    user_id: z.string().optional(),
    channel_id: z.string().min(1),
    thread_ts: z.string().min(1),
    context: z.object({ channel_id: z.string().optional(), team_id: z.string().optional() }).partial().optional(),
  }),
});

/** One suggested prompt (`slack.suggestedPrompts` in the configuration file): the chip's title and the message it sends. */
export interface SuggestedPrompt {
  readonly title: string;
  readonly message: string;
}

export interface AssistantThreadsDeps {
  /** A Web API call that throws on `ok: false` (callSlack). */
  call(method: string, args: Record<string, unknown>): Promise<unknown>;
  suggestedPrompts: readonly SuggestedPrompt[];
  logger: Logger;
}

export interface AssistantThreads {
  /** A person opened a new assistant thread: remember it and offer the suggested prompts. */
  started(channelId: string, threadTs: string): Promise<void>;
  /** Threads in the DM with the app are assistant threads: they get the status line, not the reaction and notice. */
  isAssistantThread(conversation: ConversationRef): boolean;
  /** A person's message reached the core: the first one in a started thread names it. */
  requested(conversation: ConversationRef, text: string): void;
  /** Says what the run does in the thread's status line; null clears it. Returns at once. */
  setWorking(conversation: ConversationRef, status: WorkingStatus | null): void;
  /** Waits for the status calls in flight (on shutdown). */
  stopAll(): Promise<void>;
}

/** The status line Slack shows under the thread ("Errand is thinking…"), per step of the run. */
export function statusText(status: WorkingStatus): string {
  switch (status.activity) {
    case 'reading':
      return status.toolName === 'read_channel' ? 'is reading this channel…' : 'is reading this thread…';
    case 'tool': {
      // What the running tool last reported (MCP progress) follows its name.
      const progress = status.steps?.findLast((s) => s.status === 'running')?.progress;
      return status.toolName ? `is running ${status.toolName}…${progress ? ` (${progress})` : ''}` : 'is working…';
    }
    case 'waiting':
      return 'is waiting for your answer';
    case 'thinking':
    case undefined:
      return 'is thinking…';
  }
}

/** The title of a thread from the request that started it: its first non-empty line, cut to Slack's size. */
export function titleOf(text: string): string | null {
  const line = text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  if (!line) return null;
  return line.length > MAX_TITLE ? `${line.slice(0, MAX_TITLE - 1)}…` : line;
}

/**
 * Slack's "Agents & AI Apps" surface: suggested prompts when a thread opens, a title from the first
 * request, and `assistant.threads.setStatus` as the working indicator. Status calls for one thread
 * go out in order (a late "is thinking…" must never land after the clearing ""), repeated texts are
 * skipped, and failures are logged, never thrown: a status never breaks a run.
 */
export function createAssistantThreads(deps: AssistantThreadsDeps): AssistantThreads {
  const started = new Set<string>();
  const titled = new Set<string>();
  const shown = new Map<string, string>();
  const chains = new Map<string, Promise<void>>();
  const where = (c: ConversationRef) => ({ channel_id: c.channel, thread_ts: c.thread });
  const safely = (what: string, p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (err: unknown) => deps.logger.warn({ err }, `${what} failed`),
    );
  const inOrder = (key: string, step: () => Promise<unknown>) => {
    const next = (chains.get(key) ?? Promise.resolve()).then(() => safely('setting the assistant status', step()));
    chains.set(key, next);
    void next.finally(() => {
      if (chains.get(key) === next) chains.delete(key);
    });
  };
  return {
    async started(channelId, threadTs) {
      started.add(`${channelId}/${threadTs}`);
      const prompts = deps.suggestedPrompts.map((p) => ({ title: p.title, message: p.message }));
      if (prompts.length === 0) return;
      await safely(
        'setting the suggested prompts',
        deps.call('assistant.threads.setSuggestedPrompts', { channel_id: channelId, thread_ts: threadTs, prompts }),
      );
    },
    isAssistantThread: (c) => c.thread !== null && isDmChannel(c.channel),
    requested(conversation, text) {
      const key = `${conversation.channel}/${conversation.thread ?? ''}`;
      if (!started.has(key) || titled.has(key)) return;
      const title = titleOf(text);
      if (!title) return;
      titled.add(key);
      void safely(
        'setting the thread title',
        deps.call('assistant.threads.setTitle', { ...where(conversation), title }),
      );
    },
    setWorking(conversation, status) {
      const key = conversationKey(conversation);
      const text = status ? statusText(status) : '';
      if ((shown.get(key) ?? '') === text) return;
      if (text === '') shown.delete(key);
      else shown.set(key, text);
      inOrder(key, () => deps.call('assistant.threads.setStatus', { ...where(conversation), status: text }));
    },
    async stopAll() {
      while (chains.size > 0) await Promise.all([...chains.values()]);
    },
  };
}
