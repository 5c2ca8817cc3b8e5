import { cutText, fairCutLevel } from './context-cut.js';
import type { LlmClient, LlmMessage } from './llm-client.js';
import type { LlmUsage } from './llm-response.js';
import { CHARS_PER_TOKEN } from './token-estimate.js';
import type { ContextUnit } from './transcript-units.js';

/** What the model is asked when older messages fall out of a conversation's context. */
export const SUMMARY_INSTRUCTIONS = [
  'You keep the running summary of a chat conversation between people and Errand, an AI agent working in a Slack or Discord thread.',
  "The oldest messages no longer fit in Errand's context, so you fold them into the summary: Errand will see only your summary in their place.",
  'Keep every fact, name, number, date, URL, decision, preference, instruction, open question and promise; drop greetings and chatter.',
  'Extend the summary so far with the new messages: keep what it says unless the new messages change it. Write plain, compact sentences.',
  'Reply with the updated summary only.',
].join(' ');

/** One summary written by the model, and what the request cost. */
export interface WrittenSummary {
  readonly text: string;
  readonly usage: LlmUsage | null;
}

export interface SummaryRequest {
  /** The summary so far (null: none yet). */
  readonly previous: string | null;
  /** The units that fell out of the context, oldest first. */
  readonly dropped: readonly ContextUnit[];
  /** Most tokens the summary may take (what the context keeps free for it). */
  readonly maxTokens: number;
  /** Most tokens of the messages sent to be summarised (the request must fit the model, too). */
  readonly inputTokens: number;
  readonly signal: AbortSignal;
  /** The run the summary is written for (its request's span hangs under the run's). */
  readonly runId?: string;
}

/** A message as the summariser reads it: who said it, then what. */
function lineOf(m: LlmMessage): string {
  switch (m.role) {
    case 'user':
      return `Person: ${m.content}${m.images && m.images.length > 0 ? ` [${m.images.length} image(s)]` : ''}`;
    case 'assistant': {
      const calls = (m.toolCalls ?? []).map((c) => `Errand called ${c.name}(${c.arguments})`);
      return [m.content ? `Errand: ${m.content}` : '', ...calls].filter((l) => l !== '').join('\n');
    }
    case 'tool':
      return `Tool result: ${m.content}`;
    case 'system':
      return `Note: ${m.content}`;
  }
}

/** The dropped messages as one text, each line cut to a fair share of `maxChars` when they are too long together. */
export function transcriptText(dropped: readonly ContextUnit[], maxChars: number): string {
  const lines = dropped
    .flat()
    .map(lineOf)
    .filter((l) => l !== '');
  const level = fairCutLevel(
    lines.map((l) => l.length),
    maxChars - lines.length,
  );
  return lines.map((l) => (l.length > level ? cutText(l, level, 'message') : l)).join('\n');
}

/**
 * Writes a conversation's summary: the summary so far extended with the messages that fell out (one model
 * request, `model` = COMPACTION_MODEL). Throws what the model client throws; the caller falls back to
 * dropping. A summary longer than `maxTokens` is cut, so it never takes more of the context than was kept for it.
 */
export function createSummaryWriter(llm: LlmClient, model?: string) {
  return async function writeSummary(request: SummaryRequest): Promise<WrittenSummary> {
    const maxChars = request.maxTokens * CHARS_PER_TOKEN;
    const words = Math.max(50, Math.floor(maxChars / 7));
    const messages: LlmMessage[] = [
      { role: 'system', content: `${SUMMARY_INSTRUCTIONS} At most ${words} words.` },
      {
        role: 'user',
        content: `Summary so far:\n${request.previous ?? '(none yet)'}\n\nMessages to fold in, oldest first:\n${transcriptText(request.dropped, request.inputTokens * CHARS_PER_TOKEN)}`,
      },
    ];
    const response = await llm.complete({
      messages,
      tools: [],
      signal: request.signal,
      ...(request.runId ? { runId: request.runId } : {}),
      ...(model ? { model } : {}),
    });
    const text = (response.text ?? '').trim();
    return { text: text.length > maxChars ? cutText(text, maxChars, 'message') : text, usage: response.usage ?? null };
  };
}

/** Writes a summary (see `createSummaryWriter`). */
export type SummaryWriter = ReturnType<typeof createSummaryWriter>;
