import type { RunBudget } from '../budget/budget-stop.js';
import type { TranscriptStore } from '../conversations/transcript-store.js';
import type { Logger } from '../logger.js';
import type { MemoryStore, MemoryVisibility } from '../memory/memory-store.js';
import { memoriesForRequest } from '../memory/request-memories.js';
import type { ImagePart } from '../records/stored-values.js';
import { buildContext, type BuiltContext } from './context-builder.js';
import type { SummaryWriter } from './context-summary.js';
import { memoriesSection } from './system-prompt.js';
import { transcriptUnits, type ContextUnit } from './transcript-units.js';

/** What a run remembers with: summaries and memories in the store, and the model that writes summaries. */
export interface RunMemory {
  readonly store: Pick<MemoryStore, 'summary' | 'saveSummary' | 'search' | 'newest'>;
  /** Writes summaries (COMPACTION_MODEL); absent: older messages are dropped with a note and nothing is summarised. */
  readonly writeSummary?: SummaryWriter;
  /** MEMORY_TOKEN_BUDGET: most tokens of memories in one request. */
  readonly memoryTokens: number;
}

/** The share of the context budget kept for the conversation's summary (1/SUMMARY_SHARE). */
const SUMMARY_SHARE = 5;
/**
 * When messages must be summarised, as many are folded in as leave the newest ones within this share of the
 * budget: the context then has room to grow for several steps before the next summary request.
 */
const COMPACT_TO = 0.6;

export interface AssemblyRequest {
  readonly runId: string;
  readonly conversationId: string;
  readonly systemPrompt: string;
  readonly goal: string | null;
  readonly goalImages?: readonly ImagePart[];
  readonly budgetTokens: number;
  readonly tokenScale: number;
  readonly historyRows: number;
  /** Whose memories the request may carry (the run's principal and channel); null: none. */
  readonly visibility: MemoryVisibility | null;
  readonly signal: AbortSignal;
  /** Summaries are charged to the run (and its principal's day) like any other request. */
  readonly budget?: RunBudget;
}

export interface AssemblyDeps {
  readonly transcript: Pick<TranscriptStore, 'recent'>;
  readonly logger: Logger;
  readonly memory?: RunMemory;
}

/**
 * Builds one model request of a run in the order system prompt → memories → summary → goal → newest
 * messages. When older messages no longer fit, they are folded into the conversation's stored summary
 * first (one request to COMPACTION_MODEL, charged to the run; written with a compare-and-swap so one process
 * writes at a time) and the request is built again from what remains. A summary that cannot be written
 * (the model failed, or answered nothing) leaves the request as it was: those messages left out, with the
 * note saying so; `compaction.failed` then keeps the run from asking again on every step.
 */
export async function assembleContext(request: AssemblyRequest, deps: AssemblyDeps, compaction: { failed: boolean }): Promise<BuiltContext> {
  const { memory } = deps;
  const goalText = request.goal ?? '';
  const memories = memory && request.visibility ? await memoriesForRequest(memory.store, request.visibility, goalText, memory.memoryTokens) : [];
  const writer = compaction.failed ? undefined : memory?.writeSummary;
  const reserve = memory?.writeSummary ? Math.floor(request.budgetTokens / SUMMARY_SHARE) : 0;

  const build = async () => {
    const summary = memory ? await memory.store.summary(request.conversationId) : null;
    const through = summary?.throughMessageId ?? 0;
    const window = await deps.transcript.recent(request.conversationId, request.historyRows);
    const rows = window.filter((r) => r.id > through);
    const within = (budgetTokens: number) =>
      buildContext({
        systemPrompt: request.systemPrompt,
        memories: memoriesSection(memories),
        summary: summary?.summary ?? null,
        summaryReserveTokens: reserve,
        goal: request.goal,
        ...(request.goalImages ? { goalImages: request.goalImages } : {}),
        rows,
        budgetTokens,
        tokenScale: request.tokenScale,
      });
    return { summary, through, window, within, context: within(request.budgetTokens) };
  };

  const first = await build();
  if (!writer || !memory) return first.context;
  const { summary, through, window } = first;
  // What to fold in: enough that the newest messages fill only COMPACT_TO of the budget afterwards.
  const context = first.context.dropped.length > 0 ? first.within(Math.floor(request.budgetTokens * COMPACT_TO)) : first.context;
  // Rows older than the window that no summary took in yet fell out too (a long thread read in part).
  const windowFull = window.length >= request.historyRows && window.length > 0 && window[0]!.id > through + 1;
  const older = windowFull ? (await deps.transcript.recent(request.conversationId, request.historyRows, window[0]!.id)).filter((r) => r.id > through) : [];
  const olderUnits: ContextUnit[] = older.length > 0 ? transcriptUnits(older, null).units : [];
  if (context.dropped.length === 0 && olderUnits.length === 0) return first.context;
  const newThrough = context.droppedThrough ?? window[0]!.id - 1;

  try {
    const written = await writer({ previous: summary?.summary ?? null, dropped: [...olderUnits, ...context.dropped], maxTokens: reserve, inputTokens: request.budgetTokens, signal: request.signal, runId: request.runId });
    if (written.usage) await request.budget?.record(written.usage);
    if (written.text === '') throw new Error('the model wrote an empty summary');
    const saved = await memory.store.saveSummary(request.conversationId, summary?.version ?? 0, written.text, newThrough);
    if (!saved) deps.logger.info({ runId: request.runId }, 'another process extended the conversation summary first; using theirs');
  } catch (err) {
    if (request.signal.aborted) return first.context;
    compaction.failed = true;
    deps.logger.warn({ err, runId: request.runId }, 'summarising older messages failed; they are left out of the context with a note');
    return first.context;
  }
  return (await build()).context;
}
