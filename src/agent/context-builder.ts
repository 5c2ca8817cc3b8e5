import type { TranscriptRow } from './agent-types.js';
import type { ImagePart } from '../records/stored-values.js';
import { cutText, fairCutLevel } from './context-cut.js';
import type { LlmMessage } from './llm-client.js';
import {
  CHARS_PER_TOKEN,
  IMAGE_TOKENS,
  estimateMessageTokens,
  estimateRequestTokens,
  estimateTokens,
} from './token-estimate.js';
import { transcriptUnits, type ContextUnit } from './transcript-units.js';

export interface ContextRequest {
  systemPrompt: string;
  /**
   * What the run is for (the user's request, or the to-do / scheduled prompt as `goalMessage`
   * words it): always sent, whatever the budget. Null: the newest user row stands for it.
   */
  goal: string | null;
  /**
   * Images that belong to the goal (attached to the request), sent with it whatever the budget,
   * like its text. Absent: those of the goal's transcript row, when it is among `rows`.
   */
  goalImages?: readonly ImagePart[];
  /** Transcript rows of the conversation, oldest first. */
  rows: readonly TranscriptRow[];
  /**
   * Whose run the request is for (its principal's user id): rows private to anyone else show as placeholders. Null or
   * absent: nobody's private rows are shown.
   */
  viewer?: string | null;
  /** CONTEXT_TOKEN_BUDGET: estimated tokens of system prompt plus messages (tool definitions not counted). */
  budgetTokens: number;
  /** How much denser than the estimate this model's tokens are (see `calibrateTokenScale`); default 1. */
  tokenScale?: number;
  /** The question a waiting run is parked on: its call is left out. */
  pendingToolCallId?: string;
  /** The memories this request carries, as a block of the system message (after the prompt); absent: none. */
  memories?: string;
  /** The conversation's summary of what fell out of its context (rows summarised are not in `rows`). */
  summary?: string | null;
  /**
   * Tokens kept free for the summary, at least its own size: room for the summary to grow as more falls out,
   * so a longer summary does not push out what the previous request kept.
   */
  summaryReserveTokens?: number;
}

export interface BuiltContext {
  messages: LlmMessage[];
  /** Estimated tokens of `messages` before scaling: what calibration compares with the model's usage. */
  estimatedTokens: number;
  /** Messages of the transcript left out to fit the budget. */
  omittedMessages: number;
  /**
   * The units left out, oldest first, as everyone in the conversation may read them (the viewer's private material
   * as placeholders): what the conversation's shared summary would have to take in.
   */
  dropped: ContextUnit[];
  /** Of the units left out, those that hold material private to the viewer, as the viewer sees them: for their own summary. */
  droppedPrivate: ContextUnit[];
  /**
   * The newest transcript row id a summary of `dropped` covers (every row up to it is dropped or summarised
   * already, none that was kept), or null when nothing was dropped.
   */
  droppedThrough: number | null;
}

/** Room kept for the "(N older messages … left out)" note, so adding it never breaks the budget. */
const NOTE_RESERVE_TOKENS = 24;
/** A single tool result never takes more than this share of the budget. */
const RESULT_SHARE = 4;
const MIN_RESULT_CAP_CHARS = 400;

/** The heading the summary goes under in the system message; notes refer to it by this name. */
export const SUMMARY_HEADING = 'Summary of the earlier part of this conversation';

function omissionNote(count: number, summarised: boolean): string {
  const left = `${count} older message${count === 1 ? ' was' : 's were'} left out of this conversation to fit the context`;
  if (count === 0)
    return `(Older messages of this conversation are not shown: the "${SUMMARY_HEADING}" above says what they said.)`;
  return summarised ? `(${left}; the "${SUMMARY_HEADING}" above covers what came before them.)` : `(${left}.)`;
}

function systemContent(request: ContextRequest): string {
  const parts = [request.systemPrompt];
  if (request.memories) parts.push(request.memories);
  if (request.summary)
    parts.push(`${SUMMARY_HEADING} (older messages are no longer shown; this is what they said):\n${request.summary}`);
  return parts.join('\n\n');
}

function capResults(unit: ContextUnit, capChars: number): ContextUnit {
  if (!unit.some((m) => m.role === 'tool' && m.content.length > capChars)) return unit;
  return unit.map((m) =>
    m.role === 'tool' && m.content.length > capChars ? { ...m, content: cutText(m.content, capChars, 'result') } : m,
  );
}

/**
 * Cuts a unit's texts (tool results, assistant text, a user message) evenly until its estimate
 * fits `allowance` tokens, or down to the cut notes when it cannot. Tool-call arguments stay whole
 * so the calls remain what the model sent.
 */
function shrinkUnit(unit: ContextUnit, allowance: number): ContextUnit {
  let fixed = 0;
  const lengths: number[] = [];
  for (const m of unit) {
    fixed += estimateMessageTokens(m) - estimateTokens(m.content) + estimateTokens('') + 1;
    if (m.content) lengths.push(m.content.length);
  }
  const level = fairCutLevel(lengths, (allowance - fixed) * CHARS_PER_TOKEN);
  return unit.map((m): LlmMessage => {
    if (!m.content || m.content.length <= level) return m;
    return { ...m, content: cutText(m.content, level, m.role === 'tool' ? 'result' : 'message') } as LlmMessage;
  });
}

/**
 * Builds the messages of one model request so that it is always valid and always carries the goal:
 * `[system (prompt, memories, summary), goal, …newest whole units that fit]`. Units (a user message, or an
 * assistant message with all its tool results) are kept or dropped whole, newest first; what is dropped is
 * returned (`dropped`, `droppedThrough`) so the caller can fold it into the conversation's summary
 * (context-assembly.ts), and a note after the goal says how many were left out and names the summary. The newest step is never dropped: when it alone
 * is too big its texts are cut with a note instead. Every tool result is capped at a quarter of the
 * budget. When the run's own steps all fit, the goal row stays where it is in the transcript and
 * older turns of the conversation (earlier requests and answers) fill what is left before it, so
 * `[1]` is then the oldest kept user message; otherwise the goal is `[1]`. The goal's images go with
 * it; each image counts `IMAGE_TOKENS` against the budget, wherever it is.
 */
export function buildContext(request: ContextRequest): BuiltContext {
  const scale = Math.max(1, request.tokenScale ?? 1);
  const budget = Math.floor(request.budgetTokens / scale);
  const capChars = Math.max(MIN_RESULT_CAP_CHARS, Math.floor(budget / RESULT_SHARE) * CHARS_PER_TOKEN);
  const { units, goalIndex, spans } = transcriptUnits(
    request.rows,
    request.goal,
    request.pendingToolCallId,
    request.viewer ?? null,
  );

  const system: LlmMessage = { role: 'system', content: systemContent(request) };
  const summaryTokens = request.summary ? estimateTokens(request.summary) : 0;
  const reserve = Math.max(0, (request.summaryReserveTokens ?? 0) - summaryTokens);
  const goalRow = goalIndex >= 0 ? units[goalIndex]![0]! : null;
  const goalText = request.goal ?? goalRow?.content ?? '';
  const goalImages = request.goalImages ?? (goalRow?.role === 'user' ? (goalRow.images ?? []) : []);
  let remaining =
    budget -
    estimateTokens(system.content) -
    estimateTokens(goalText) -
    goalImages.length * IMAGE_TOKENS -
    NOTE_RESERVE_TOKENS -
    reserve;

  const after = units.slice(goalIndex + 1);
  const keptAfter: ContextUnit[] = [];
  let next = after.length - 1;
  for (; next >= 0; next--) {
    let unit = capResults(after[next]!, capChars);
    let cost = estimateRequestTokens(unit);
    if (cost > remaining) {
      if (keptAfter.length > 0) break;
      unit = shrinkUnit(unit, remaining);
      cost = estimateRequestTokens(unit);
    }
    keptAfter.push(unit);
    remaining -= cost;
  }
  let omittedAfter = 0;
  for (let i = 0; i <= next; i++) omittedAfter += after[i]!.length;

  const before = goalIndex > 0 ? units.slice(0, goalIndex) : [];
  const keptBefore: ContextUnit[] = [];
  if (next < 0) {
    for (let i = before.length - 1; i >= 0; i--) {
      const unit = capResults(before[i]!, capChars);
      const cost = estimateRequestTokens(unit);
      if (cost > remaining) break;
      keptBefore.push(unit);
      remaining -= cost;
    }
    keptBefore.reverse();
    while (keptBefore.length > 0 && keptBefore[0]![0]!.role !== 'user') keptBefore.shift();
  }
  let omittedBefore = 0;
  for (let i = 0; i < before.length - keptBefore.length; i++) omittedBefore += before[i]!.length;

  const omitted = omittedAfter + omittedBefore;
  const summarised = Boolean(request.summary);
  const goal = omitted > 0 || summarised ? `${goalText}\n\n${omissionNote(omitted, summarised)}` : goalText;

  // Units are in transcript order: those dropped come before every kept one but the goal's.
  const afterStart = goalIndex + 1;
  const droppedIndexes: number[] = [];
  for (let i = 0; i < before.length - keptBefore.length; i++) droppedIndexes.push(i);
  for (let i = 0; i <= next; i++) droppedIndexes.push(afterStart + i);
  const firstKept =
    keptBefore.length > 0 ? before.length - keptBefore.length : keptAfter.length > 0 ? afterStart + next + 1 : -1;
  const keptFrom = firstKept >= 0 ? spans[firstKept]!.first : Number.POSITIVE_INFINITY;
  const droppedLast = droppedIndexes.reduce((max, i) => Math.max(max, spans[i]!.last), -1);

  const goalMessage: LlmMessage =
    goalImages.length > 0 ? { role: 'user', content: goal, images: goalImages } : { role: 'user', content: goal };
  const messages: LlmMessage[] = [system, ...keptBefore.flat(), goalMessage, ...keptAfter.reverse().flat()];
  return {
    messages,
    estimatedTokens: estimateRequestTokens(messages),
    omittedMessages: omitted,
    dropped: droppedIndexes.map((i) => spans[i]!.shared ?? units[i]!),
    droppedPrivate: droppedIndexes.filter((i) => spans[i]!.shared !== undefined).map((i) => units[i]!),
    droppedThrough: droppedIndexes.length > 0 ? Math.min(droppedLast, keptFrom - 1) : null,
  };
}
