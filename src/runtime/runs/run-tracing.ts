import type { RunOutcome } from '../../runs/run-outcome.js';
import { systemClock, type Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import { principalPseudonym, pseudonymKey } from '../../telemetry/principal-pseudonym.js';
import type { RunTraceStore } from '../../telemetry/run-trace-store.js';
import type { Tracing } from '../../telemetry/tracing.js';

/** What the span of one run execution says about it. */
export interface RunSpanInfo {
  readonly runId: string;
  readonly conversationId: string;
  readonly platform: string;
  /** Whom the run acts for (`platform:user id`), or null. */
  readonly principal: string | null;
  /** The run executed before (it has steps, or resumes after a question): only then is its first trace looked up. */
  readonly resumed: boolean;
  /** What the run has cost in dollars so far (its budget's count), read when it ends. */
  readonly spentUsd?: () => number;
}

/** Runs' spans: one `invoke_agent errand` per execution, and the trace a run's posts belong under. */
export interface RunTracer {
  /** Runs one execution of a run inside its span; a run resumed (here or elsewhere) links to the trace it started in. */
  trace(info: RunSpanInfo, execute: () => Promise<RunOutcome>): Promise<RunOutcome>;
  /** The `traceparent` of the run while it executes in this process (its posts' deliveries hang under it), else null. */
  parentOf(runId: string): string | null;
}

/**
 * Principals' pseudonyms as run spans carry them by default (telemetry/principal-pseudonym.ts), computed once each (a
 * hash per run is measurable on the message path); bounded. The key is read once, on the first traced run; when it
 * cannot be read the attribute is left out (never an unkeyed hash).
 */
function memoPseudonym(
  key: () => Promise<Buffer>,
  logger: Logger,
): { known(principal: string): string | undefined; compute(principal: string): Promise<string | undefined> } {
  const known = new Map<string, string>();
  let loaded: Promise<Buffer | null> | null = null;
  const compute = async (principal: string) => {
    loaded ??= key().catch((err: unknown) => {
      logger.warn({ err }, 'reading the key of principal pseudonyms failed; run spans go without errand.principal');
      loaded = null;
      return null;
    });
    const k = await loaded;
    if (k === null) return undefined;
    if (known.size >= 10_000) known.clear();
    const pseudonym = principalPseudonym(k, principal);
    known.set(principal, pseudonym);
    return pseudonym;
  };
  // A known principal is answered at once: the span then starts in the same turn as before (no await on the way).
  return { known: (principal) => known.get(principal), compute };
}

/**
 * A first execution still running after this long has its trace written, so a crash later on leaves the link for
 * the process that resumes it; one that ends sooner writes it only if it may execute again.
 */
const RECORD_AFTER_MS = 1_000;

/** Outcomes that mean the run did not do what it was asked: their span is marked failed with the outcome as `error.type`. */
const FAILED = new Set<RunOutcome['kind']>(['failed', 'over_budget', 'step_limit', 'target_gone']);

/**
 * The run tracer over `tracing` and the run traces table. With tracing off it is the execution itself (no read,
 * no write). On: a resumed execution reads the first trace before its span starts, to link to it. A first
 * execution writes its trace (not awaited) only when it may be resumed: it is still running after
 * RECORD_AFTER_MS (a crash may follow), or it ended other than completed (waiting for an answer, stopped by a
 * shutdown, failed). A run that completes quickly, the common case, writes nothing: the write was a database
 * statement on every message's path. A crash within RECORD_AFTER_MS of a run's start loses its link. Any failure
 * here only loses the link, never the run.
 */
export function createRunTracer(
  tracing: Tracing,
  traces: RunTraceStore,
  logger: Logger,
  clock: Clock = systemClock,
  secretKey?: string,
): RunTracer {
  const live = new Map<string, string>();
  // The key of `errand.principal` (principal-pseudonym.ts): ERRAND_SECRET_KEY's when set, else the stored one.
  const pseudonym = memoPseudonym(() => pseudonymKey(secretKey, traces), logger);
  return {
    async trace(info, execute) {
      if (!tracing.enabled) return execute();
      const earlier = !info.resumed
        ? null
        : await traces
            .traceOf(info.runId)
            .catch(
              (err: unknown) => (
                logger.debug({ err, runId: info.runId }, 'reading the trace a run started in failed'),
                null
              ),
            );
      const principal =
        info.principal === null
          ? undefined
          : tracing.captureContent
            ? info.principal
            : (pseudonym.known(info.principal) ?? (await pseudonym.compute(info.principal)));
      const attributes = {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'errand',
        'gen_ai.conversation.id': info.conversationId,
        'errand.platform': info.platform,
        'errand.conversation_id': info.conversationId,
        'errand.run_id': info.runId,
        'errand.principal': principal,
        'errand.run.resumed': info.resumed,
      };
      // A new trace of its own (never the child of whatever was active when the coordinator started it). Not the
      // active span: its requests and tool calls find it by the run (`parentOf`), so the run needs no async context.
      return tracing.span(
        'invoke_agent errand',
        { parent: null, active: false, attributes, links: earlier ? [earlier] : [] },
        async (span) => {
          const traceparent = span.traceparent();
          live.set(info.runId, traceparent);
          // A resumed run's first trace is kept already.
          let recorded = info.resumed;
          const record = () => {
            if (recorded) return;
            recorded = true;
            void traces
              .recordTrace(info.runId, traceparent)
              .catch((err: unknown) => logger.debug({ err, runId: info.runId }, 'recording the trace of a run failed'));
          };
          const timer = recorded ? null : clock.setTimer(record, RECORD_AFTER_MS);
          let outcome: RunOutcome | null = null;
          try {
            outcome = await execute();
            span.set({ 'errand.run.outcome': outcome.kind, 'errand.run.cost_usd': info.spentUsd?.() });
            if (FAILED.has(outcome.kind)) span.fail(outcome.kind);
            return outcome;
          } finally {
            if (timer !== null) clock.clearTimer(timer);
            // A completed run never executes again: nothing will look its first trace up.
            if (outcome?.kind !== 'completed') record();
            live.delete(info.runId);
          }
        },
      );
    },
    parentOf: (runId) => live.get(runId) ?? null,
  };
}
