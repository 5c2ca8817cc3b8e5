import { randomBytes } from 'node:crypto';
import { ErrorCode, McpError, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { PostIntent } from '../../agent/agent-types.js';
import { elicitationActionId } from '../../chat/elicitation-form.js';
import type { Clock } from '../../clock.js';
import type { ElicitationRow } from '../../db/schema.js';
import type { Outbox } from '../../outbox/outbox.js';
import type { ElicitationStore } from '../../runs/elicitation-store.js';
import { endOf, type Ending } from './elicitation-answer.js';
import { fingerprintOf, resultOf, storedRequest, type ShownElicitation } from './elicitation-record.js';
import type { ElicitationRuns } from './elicitation-runs.js';
import type { ElicitationScope } from '../../mcp/elicitation-scope.js';
import { elicitationPostText, elicitationTexts } from './elicitation-texts.js';

/** What a waiting question needs: where it is posted and kept, and its clock. */
export interface WaitingDeps {
  /** Where the question, its outcome and the private link go: the outbox, like every post. */
  readonly posts: Pick<Outbox, 'record' | 'delivered' | 'recordEdit' | 'recordEphemeral' | 'piecesOf'>;
  /** Where questions are kept while they wait, so any process can answer them and a restart finds them. */
  readonly store: ElicitationStore;
  /** The runs the questions belong to; absent (a bare client): an aborted call's question is cancelled. */
  readonly runs?: ElicitationRuns;
  readonly clock: Clock;
  /** ASK_TIMEOUT_MINUTES: a question nobody answers is cancelled after it. */
  readonly askTimeoutMs: number;
  /** Whether a notice in this conversation reaches its person alone (a URL is then sent privately). */
  readonly privateIn: (conversationId: string) => boolean;
  readonly newId?: () => string;
}

/** A question whose call waits in this process. */
export interface Waiting {
  readonly id: string;
  readonly server: string;
  readonly platform: string;
  readonly principal: string;
  readonly request: ShownElicitation;
  readonly scope: ElicitationScope;
  /** Settles the question here (first answer wins) and ends the call's wait with the winning answer; false when another won. */
  settle(ending: Ending): Promise<boolean>;
  /** Ends the call's wait with an answer given on another process. */
  learn(row: ElicitationRow): void;
}

/** A question as a click sees it: waiting here, or only in the database (its call waits elsewhere, or died). */
export type Asked = Pick<Waiting, 'id' | 'server' | 'platform' | 'principal' | 'request'>;

/**
 * Posts one MCP server question in the run's thread, keeps it as a row, and waits for its answer here: the person's
 * click (settled on this process or learnt from another), the timeout, or the run's stop. While it waits neither the
 * call's timeout nor the run's time limit counts. A process that stops leaves the question open for the restart.
 */
export async function waitForAnswer(
  deps: WaitingDeps,
  here: { readonly waiting: Map<string, Waiting>; schedulePoll(): void },
  asked: { scope: ElicitationScope; request: ShownElicitation; params: unknown; principal: string; log: Logger },
): Promise<ElicitResult> {
  const { scope, request, params, principal, log } = asked;
  const { conversationId, runId, conversation } = scope.context;
  const { store, clock } = deps;
  const id = deps.newId?.() ?? randomBytes(6).toString('hex');
  const linkPrivately = request.mode === 'url' && deps.privateIn(conversationId);
  const buttons =
    request.mode === 'form'
      ? [
          { actionId: elicitationActionId(id, 'answer'), label: 'Answer', style: 'primary' as const },
          { actionId: elicitationActionId(id, 'decline'), label: 'Decline' },
        ]
      : [
          // Where no notice reaches the person alone, the link is given to them alone on a click of theirs.
          ...(linkPrivately ? [] : [{ actionId: elicitationActionId(id, 'link'), label: 'Show link' }]),
          { actionId: elicitationActionId(id, 'done'), label: 'Done', style: 'primary' as const },
          { actionId: elicitationActionId(id, 'decline'), label: 'Decline' },
        ];
  const intent: PostIntent = {
    purpose: 'question',
    text: elicitationPostText(scope, request, linkPrivately),
    mentionUserId: principal,
    buttons,
  };
  const fingerprint = fingerprintOf(scope.server, params);
  await store.add({
    id,
    runId,
    conversationId,
    platform: conversation.platform,
    principal,
    server: scope.server,
    tool: scope.exposedName,
    request: storedRequest(params),
    fingerprint,
    postText: intent.text,
    askedAt: clock.now(),
  });
  return new Promise<ElicitResult>((resolve, reject) => {
    let messageId: Promise<string | null> = Promise.resolve(null);
    let ended = false;
    const release = scope.hold();
    const releaseRun = scope.context.holdRunTime?.();
    scope.context.reportWaiting?.(true);
    /**
     * Ends the call's wait. `outcome` null: the question stays open (this process stops, the restart carries it over),
     * and the server hears an error rather than an answer nobody gave.
     */
    const complete = (result: ElicitResult, outcome: string | null) => {
      if (ended) return;
      ended = true;
      clock.clearTimer(timer);
      scope.signal.removeEventListener('abort', onAbort);
      release();
      releaseRun?.();
      scope.context.reportWaiting?.(false);
      here.waiting.delete(id);
      log.info({ action: result.action, leftOpen: outcome === null }, 'an MCP server question ended');
      // Recorded before the call goes on: at a shutdown the run unwinds at once, and the outbox keeps what was recorded.
      if (outcome !== null) void showOutcome(deps, conversationId, runId, messageId, intent, outcome, log);
      if (outcome === null)
        reject(
          new McpError(
            ErrorCode.ConnectionClosed,
            'Errand stopped working on this call; the question stays open and the call will be made again.',
          ),
        );
      else resolve(result);
    };
    const settle = async (ending: Ending): Promise<boolean> => {
      if (ended) return false;
      try {
        if (await store.settle(id, endOf(ending), clock.now())) {
          complete(ending.result, ending.outcome);
          return true;
        }
        const row = await store.get(id);
        if (row && row.state !== 'waiting') complete(resultOf(row), row.outcome ?? '');
      } catch (err) {
        log.error({ err }, 'settling an MCP server question failed; cancelled the call’s wait');
        complete({ action: 'cancel' }, elicitationTexts.stopped);
      }
      return false;
    };
    const timer = clock.setTimer(
      () => void settle({ result: { action: 'cancel' }, outcome: elicitationTexts.timedOut, by: null }),
      deps.askTimeoutMs,
    );
    const onAbort = () => {
      const stopped = deps.runs ? deps.runs.stopped(runId).catch(() => true) : Promise.resolve(true);
      void stopped.then((yes) => {
        if (yes) void settle({ result: { action: 'cancel' }, outcome: elicitationTexts.stopped, by: null });
        else complete({ action: 'cancel' }, null);
      });
    };
    here.waiting.set(id, {
      id,
      server: scope.server,
      platform: conversation.platform,
      principal,
      request,
      scope,
      settle,
      learn: (row) => complete(resultOf(row), row.outcome ?? ''),
    });
    here.schedulePoll();
    scope.signal.addEventListener('abort', onAbort, { once: true });
    void (async () => {
      try {
        const ticket = await deps.posts.record(conversationId, runId, intent);
        if (linkPrivately && request.mode === 'url')
          await deps.posts.recordEphemeral(
            conversationId,
            principal,
            elicitationTexts.privateLink(scope.server, request.url),
          );
        messageId = deps.posts.delivered(ticket);
        log.info({ elicitationId: id }, 'asked the person an MCP server question');
        const posted = await messageId;
        if (posted !== null) await store.setMessage(id, posted);
      } catch (err) {
        log.error({ err }, 'posting an MCP server question failed; cancelled it');
        void settle({ result: { action: 'cancel' }, outcome: elicitationTexts.stopped, by: null });
      }
    })();
  });
}

/** Edits the question's post to say how it ended (its buttons go), keeping the post's own text. */
async function showOutcome(
  deps: WaitingDeps,
  conversationId: string,
  runId: string,
  messageId: Promise<string | null>,
  intent: PostIntent,
  outcome: string,
  log: Logger,
): Promise<void> {
  try {
    const id = await messageId;
    if (id === null) return;
    const shown = deps.posts.piecesOf(conversationId, intent).at(-1)?.text ?? intent.text;
    await deps.posts.recordEdit(conversationId, runId, id, `${shown}\n\n${outcome}`);
  } catch (err) {
    log.warn({ err }, 'showing how an MCP server question ended failed');
  }
}
