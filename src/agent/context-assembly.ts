import type { RunBudget } from '../budget/budget-stop.js';
import type { TranscriptStore } from '../conversations/transcript-store.js';
import type { Logger } from '../logger.js';
import type { Person } from '../access/access-policy.js';
import type { ConversationRef } from '../chat/conversation-ref.js';
import type { ImagePart } from '../records/stored-values.js';
import { buildContext, type BuiltContext } from './context-builder.js';
import type { ReadContext, StoredSummary } from './context-read.js';
import type { SummaryWriter } from './context-summary.js';
import { memoriesSection } from './system-prompt.js';
import { privateRowUnits, withPrivateSummary } from './private-summary.js';
import { transcriptUnits, type ContextUnit } from './transcript-units.js';

export type { StoredSummary } from './context-read.js';

/**
 * Where summaries are kept (the memory feature's store is one): each conversation's, and each person's own summary
 * of their private material. A save writes only when the stored version is still `expectedVersion` (0: none yet).
 */
export interface SummaryStore {
  summary(conversationId: string): Promise<StoredSummary | null>;
  saveSummary(
    conversationId: string,
    expectedVersion: number,
    summary: string,
    throughMessageId: number,
  ): Promise<boolean>;
  privateSummary(conversationId: string, owner: string): Promise<StoredSummary | null>;
  savePrivateSummary(
    conversationId: string,
    owner: string,
    expectedVersion: number,
    summary: string,
    throughMessageId: number,
  ): Promise<boolean>;
}

/** A long-term memory as one request carries it (listed under the system prompt). */
export type RecalledMemory = Parameters<typeof memoriesSection>[0][number];

/** What a run remembers with: summaries in the store, long-term memories, and the model that writes summaries. */
export interface RunMemory {
  readonly store: SummaryStore;
  /**
   * The long-term memories one request carries: those `principal` may see in `place` that match the goal, then the
   * newest, within `budgetTokens`, read fresh each time (src/memory plugs it in: src/memory/agent/run-memory.ts).
   */
  recall(
    principal: Person | null,
    place: ConversationRef,
    goal: string,
    budgetTokens: number,
  ): Promise<readonly RecalledMemory[]>;
  /** Writes summaries (COMPACTION_MODEL); absent: older messages are dropped with a note and nothing is summarised. */
  readonly writeSummary?: SummaryWriter;
  /** MEMORY_TOKEN_BUDGET: most tokens of memories in one request. */
  readonly memoryTokens: number;
  /**
   * Reads what one build of a request needs (the summaries, the transcript's window, the memories `recall` would
   * give) at once; present on PostgreSQL, where it is one statement instead of five. Absent: each is read on its own.
   */
  readonly readContext?: ReadContext;
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
  /** Whose memories the request may carry (the run's principal, in its conversation); null: none. */
  readonly memoryOf: { readonly principal: Person | null; readonly place: ConversationRef } | null;
  /**
   * The run's principal (platform user id): the transcript's rows private to them, and their own summary, are in the
   * request; another person's private rows are placeholders. Null: nobody's private material is.
   */
  readonly viewer: string | null;
  readonly signal: AbortSignal;
  /** Summaries are charged to the run (and its principal's day) like any other request. */
  readonly budget?: RunBudget;
}

export interface AssemblyDeps {
  readonly transcript: Pick<TranscriptStore, 'recent' | 'privateRows'>;
  readonly logger: Logger;
  readonly memory?: RunMemory;
}

/** How compaction went in one execution of a run (kept between its steps). */
export interface CompactionState {
  /** A summary could not be written: the run does not ask again on every step. */
  failed: boolean;
  /** The shared summary's end the viewer's own summary was last brought up to (or checked against). */
  privateCheckedThrough?: number;
}

/** A request's messages, and whether the run's own steps so far hold material private to its principal. */
export interface AssembledContext extends BuiltContext {
  readonly runIsPrivate: boolean;
}

/**
 * Builds one model request of a run in the order system prompt → memories → summary → goal → newest
 * messages. When older messages no longer fit, they are folded into the conversation's stored summary
 * first (one request to COMPACTION_MODEL, charged to the run; written with a compare-and-swap so one process
 * writes at a time) and the request is built again from what remains. A summary that cannot be written
 * (the model failed, or answered nothing) leaves the request as it was: those messages left out, with the
 * note saying so; `compaction.failed` then keeps the run from asking again on every step.
 * Private material (DESIGN.md "Private stays private in a shared thread"): rows private to another person are
 * placeholders; the shared summary only ever takes in the placeholders, and what was private to the viewer goes into
 * the viewer's own summary (a second request), which only their runs carry.
 */
export async function assembleContext(
  request: AssemblyRequest,
  deps: AssemblyDeps,
  compaction: CompactionState,
): Promise<AssembledContext> {
  const { memory } = deps;
  const { viewer } = request;
  const goalText = request.goal ?? '';
  /** The request's memories: read once, with the first build. */
  let memories: readonly RecalledMemory[] | undefined;
  /** What one build reads: in one go where the memory offers it, else each part on its own (memories first). */
  const read = async () => {
    if (memory?.readContext) {
      const { memoryOf } = request;
      const got = await memory.readContext({
        conversationId: request.conversationId,
        viewer,
        historyRows: request.historyRows,
        memoryOf: memories === undefined && memoryOf ? { ...memoryOf, goal: goalText } : null,
      });
      memories ??= got.memories;
      return got;
    }
    memories ??=
      memory && request.memoryOf
        ? await memory.recall(request.memoryOf.principal, request.memoryOf.place, goalText, memory.memoryTokens)
        : [];
    const summary = memory ? await memory.store.summary(request.conversationId) : null;
    const mine = memory && viewer !== null ? await memory.store.privateSummary(request.conversationId, viewer) : null;
    return { summary, mine, window: await deps.transcript.recent(request.conversationId, request.historyRows) };
  };
  const writer = compaction.failed ? undefined : memory?.writeSummary;
  const reserve = memory?.writeSummary ? Math.floor(request.budgetTokens / SUMMARY_SHARE) : 0;
  const charge = async (usage: Parameters<RunBudget['record']>[0] | null) => {
    if (usage) await request.budget?.record(usage);
  };

  const build = async () => {
    const { summary, mine, window } = await read();
    const through = summary?.throughMessageId ?? 0;
    const rows = window.filter((r) => r.id > through);
    const within = (budgetTokens: number) =>
      buildContext({
        systemPrompt: request.systemPrompt,
        memories: memoriesSection(memories ?? []),
        summary: withPrivateSummary(summary?.summary ?? null, mine?.summary ?? null),
        summaryReserveTokens: reserve,
        goal: request.goal,
        ...(request.goalImages ? { goalImages: request.goalImages } : {}),
        rows,
        viewer,
        budgetTokens,
        tokenScale: request.tokenScale,
      });
    const runIsPrivate = viewer !== null && window.some((r) => r.runId === request.runId && r.privateTo === viewer);
    return { summary, mine, through, window, within, context: { ...within(request.budgetTokens), runIsPrivate } };
  };

  /** Folds `units` (the viewer's private material) into the viewer's own summary, through `throughId`. */
  const foldPrivate = async (
    mine: Awaited<ReturnType<typeof build>>['mine'],
    units: readonly ContextUnit[],
    throughId: number,
  ): Promise<void> => {
    if (!writer || !memory || viewer === null || units.length === 0) return;
    const written = await writer({
      previous: mine?.summary ?? null,
      dropped: units,
      maxTokens: reserve,
      inputTokens: request.budgetTokens,
      signal: request.signal,
      runId: request.runId,
    });
    await charge(written.usage);
    if (written.text === '') throw new Error('the model wrote an empty summary');
    await memory.store.savePrivateSummary(request.conversationId, viewer, mine?.version ?? 0, written.text, throughId);
  };

  let first = await build();
  // What fell into the shared summary while it was private to the viewer goes into their own summary once.
  if (
    writer &&
    memory &&
    viewer !== null &&
    first.summary &&
    (first.mine?.throughMessageId ?? 0) < first.through &&
    compaction.privateCheckedThrough !== first.through
  ) {
    compaction.privateCheckedThrough = first.through;
    const missed = await deps.transcript.privateRows(
      request.conversationId,
      viewer,
      first.mine?.throughMessageId ?? 0,
      first.through,
      request.historyRows,
    );
    if (missed.length > 0) {
      const upTo = missed.length >= request.historyRows ? missed.at(-1)!.id : first.through;
      try {
        await foldPrivate(first.mine, privateRowUnits(missed), upTo);
        first = await build();
      } catch (err) {
        if (request.signal.aborted) return first.context;
        deps.logger.warn(
          { err, runId: request.runId },
          'bringing a private summary up to date failed; that material is left out of the context',
        );
      }
    }
  }
  if (!writer || !memory) return first.context;
  const { summary, mine, through, window } = first;
  // What to fold in: enough that the newest messages fill only COMPACT_TO of the budget afterwards.
  const context =
    first.context.dropped.length > 0 ? first.within(Math.floor(request.budgetTokens * COMPACT_TO)) : first.context;
  // Rows older than the window that no summary took in yet fell out too (a long thread read in part).
  const windowFull = window.length >= request.historyRows && window.length > 0 && window[0]!.id > through + 1;
  const older = windowFull
    ? (await deps.transcript.recent(request.conversationId, request.historyRows, window[0]!.id)).filter(
        (r) => r.id > through,
      )
    : [];
  const olderUnits = older.length > 0 ? transcriptUnits(older, null, undefined, viewer) : { units: [], spans: [] };
  const olderShared = olderUnits.units.map((u, i) => olderUnits.spans[i]!.shared ?? u);
  const olderPrivate = olderUnits.units.filter((_, i) => olderUnits.spans[i]!.shared !== undefined);
  if (context.dropped.length === 0 && olderShared.length === 0) return first.context;
  const newThrough = context.droppedThrough ?? window[0]!.id - 1;

  try {
    const written = await writer({
      previous: summary?.summary ?? null,
      dropped: [...olderShared, ...context.dropped],
      maxTokens: reserve,
      inputTokens: request.budgetTokens,
      signal: request.signal,
      runId: request.runId,
    });
    await charge(written.usage);
    if (written.text === '') throw new Error('the model wrote an empty summary');
    const saved = await memory.store.saveSummary(
      request.conversationId,
      summary?.version ?? 0,
      written.text,
      newThrough,
    );
    if (!saved)
      deps.logger.info(
        { runId: request.runId },
        'another process extended the conversation summary first; using theirs',
      );
    else await foldPrivate(mine, [...olderPrivate, ...context.droppedPrivate], newThrough);
  } catch (err) {
    if (request.signal.aborted) return first.context;
    compaction.failed = true;
    deps.logger.warn(
      { err, runId: request.runId },
      'summarising older messages failed; they are left out of the context with a note',
    );
    return first.context;
  }
  return (await build()).context;
}
