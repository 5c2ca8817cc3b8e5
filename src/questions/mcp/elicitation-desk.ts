import { ErrorCode, McpError, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import {
  elicitationActionId,
  type CarriedOverElicitation,
  type ElicitationEvent,
  type ElicitationReply,
} from '../../chat/elicitation-form.js';
import type { ElicitationRow } from '../../db/schema.js';
import { answerOf, endOf, type Ending } from './elicitation-answer.js';
import { fingerprintOf, requestOf, resultOf } from './elicitation-record.js';
import { elicitationTexts, unsupportedNote } from './elicitation-texts.js';
import { MalformedElicitation, readRequestedElicitation, type RequestedElicitation } from './requested-form.js';
import type { ElicitationAsker, ElicitationScope } from '../../mcp/elicitation-scope.js';
import { waitForAnswer, type Asked, type Waiting, type WaitingDeps } from './waiting-question.js';

export interface ElicitationDeskDeps extends WaitingDeps {
  readonly logger: Logger;
  /** How often this process looks for answers other processes gave to the questions its calls wait on (default 2 s; a wake-up looks at once). */
  readonly pollMs?: number;
}

const DEFAULT_POLL_MS = 2000;

/**
 * Asks a run's principal, in the run's thread, the questions MCP servers send during a tool call (elicitation, MCP
 * 2025-11-25), and brings back their answer. The question is posted with **Answer** (a form) or, for a link, **Done**,
 * and **Decline**; the adapters open the form and hand back what was entered (SurfaceSink.onElicitation), checked
 * here against the server's schema. Only the principal may answer; a question ends as `accept` with content,
 * `decline`, or `cancel` (the run stopped, or ASK_TIMEOUT_MINUTES passed), and its post is edited to say how.
 * While it waits, neither the call's timeout nor the run's time limit counts (the run keeps its slot).
 *
 * Every question is a row (ElicitationStore), so a click may land on any process: that process opens the form from
 * the row, checks the answer against the stored schema and settles the row (a compare-and-swap: the first answer
 * wins); the process holding the call learns of it from a wake-up or its own look every `pollMs`. When the holding
 * process stops or dies the question stays open: recovery parks the run on it (questions/runtime/elicitation-carry-over.ts),
 * its answer resumes the run, and the call made again is answered from the stored answer when its server asks the
 * same question again (`takeReplay`), so nobody is asked twice.
 */
export class ElicitationDesk implements ElicitationAsker {
  private readonly waiting = new Map<string, Waiting>();
  private pollTimer: unknown = null;

  constructor(private readonly deps: ElicitationDeskDeps) {}

  /** Questions whose calls wait in this process now (tests, /healthz later). */
  get open(): number {
    return this.waiting.size;
  }

  async ask(scope: ElicitationScope, params: unknown): Promise<ElicitResult> {
    let request: RequestedElicitation;
    try {
      request = readRequestedElicitation(params);
    } catch (err) {
      if (err instanceof MalformedElicitation) throw new McpError(ErrorCode.InvalidParams, err.message);
      throw err;
    }
    const { context } = scope;
    const principal = context.principal?.userId ?? context.userId;
    const log = this.deps.logger.child({ mcpServer: scope.server, runId: context.runId, mode: request.mode });
    if (principal === null) {
      log.warn('an MCP server asked a question during a run that acts for nobody; cancelled it');
      return { action: 'cancel' };
    }
    if (request.mode === 'unsupported') {
      log.warn({ reason: request.reason }, 'an MCP server asked a question Errand cannot show; declined it');
      await this.deps.posts
        .record(context.conversationId, context.runId, {
          purpose: 'note',
          text: unsupportedNote(scope.server, principal, request.reason),
        })
        .catch((err: unknown) => log.error({ err }, 'recording the note about a declined question failed'));
      return {
        action: 'decline',
        _meta: { 'errand/reason': `Errand cannot show this form to a person: ${request.reason}.` },
      };
    }
    if (scope.signal.aborted) return { action: 'cancel' };
    // The call was made again after a restart and its server asks what the person already answered.
    const replay = await this.deps.store.takeReplay(
      context.runId,
      fingerprintOf(scope.server, params),
      this.deps.clock.now(),
    );
    if (replay) {
      log.info(
        { elicitationId: replay.id },
        "answered an MCP server's repeated question from the answer given before the restart",
      );
      return resultOf(replay);
    }
    return waitForAnswer(
      this.deps,
      { waiting: this.waiting, schedulePoll: () => this.schedulePoll() },
      { scope, request, params, principal, log },
    );
  }

  /** The server finished a link's page itself: a question still waiting for Done ends as accepted. */
  completed(elicitationId: string, inFlight: ReadonlySet<ElicitationScope>): void {
    for (const w of this.waiting.values()) {
      if (w.request.mode === 'url' && w.request.elicitationId === elicitationId && inFlight.has(w.scope))
        void w.settle({ result: { action: 'accept' }, outcome: elicitationTexts.finished, by: null });
    }
  }

  /** A wake-up: a question was settled on another process. Looks at once rather than at the next poll. */
  recheck(): Promise<void> {
    return this.look();
  }

  /** A person acting on a question (SurfaceSink.onElicitation), whichever process holds its call. */
  async handle(event: ElicitationEvent): Promise<ElicitationReply> {
    const local = this.waiting.get(event.id);
    const row = local ? null : await this.deps.store.get(event.id);
    if (row?.state === 'waiting' && row.carriedOver && (await this.deps.runs?.stopped(row.runId)))
      return this.closeStopped(row);
    const request = local?.request ?? (row?.state === 'waiting' ? requestOf(row) : null);
    const asked: Asked | null =
      local ??
      (row && request
        ? { id: row.id, server: row.server, platform: row.platform, principal: row.principal, request }
        : null);
    if (!asked) return { kind: 'refused', text: elicitationTexts.closed };
    if (event.platform !== asked.platform || event.userId !== asked.principal)
      return { kind: 'refused', text: elicitationTexts.notYours(asked.server, asked.principal) };
    const answer = answerOf(asked, event);
    if (answer.kind === 'reply') return answer.reply;
    const won = local ? await local.settle(answer.ending) : await this.settleElsewhere(row!, answer.ending);
    return won ? answer.reply : { kind: 'refused', text: elicitationTexts.closed };
  }

  /**
   * The questions carried over a restart that still wait for `principal` on `platform`, to be put to them again where
   * the post did not outlive the process (the console). A question whose run was stopped meanwhile is closed instead.
   */
  async carriedOverTo(platform: string, principal: string): Promise<CarriedOverElicitation[]> {
    const shown: CarriedOverElicitation[] = [];
    for (const row of await this.deps.store.carriedOverTo(platform, principal)) {
      const request = requestOf(row);
      if (!request) continue;
      if (await this.deps.runs?.stopped(row.runId)) {
        await this.closeStopped(row);
        continue;
      }
      const ops =
        request.mode === 'form'
          ? ([
              ['answer', 'Answer'],
              ['decline', 'Decline'],
            ] as const)
          : ([
              ['done', 'Done'],
              ['decline', 'Decline'],
            ] as const);
      shown.push({
        id: row.id,
        text: row.postText,
        buttons: ops.map(([op, label]) => ({ actionId: elicitationActionId(row.id, op), label })),
        privateLink: request.mode === 'url' ? elicitationTexts.privateLink(row.server, request.url) : null,
      });
    }
    return shown;
  }

  /** Settles a question whose call does not wait here: its holder learns of it, or the run parked on it resumes. */
  private async settleElsewhere(row: ElicitationRow, ending: Ending): Promise<boolean> {
    const end = endOf(ending);
    if (!(await this.deps.store.settle(row.id, end, this.deps.clock.now()))) return false;
    this.deps.logger.info(
      { elicitationId: row.id, runId: row.runId, state: end.state, carriedOver: row.carriedOver },
      'an MCP server question was settled on a process other than the call’s',
    );
    if (row.carriedOver) return (await this.deps.runs?.settled(row.runId, row.id, end.state, end.answeredBy)) ?? false;
    this.deps.runs?.wake(row.conversationId);
    return true;
  }

  /** A carried-over question whose run was stopped while it waited: settled as cancelled, its post closed (buttons gone). */
  private async closeStopped(row: ElicitationRow): Promise<ElicitationReply> {
    const ending: Ending = { result: { action: 'cancel' }, outcome: elicitationTexts.stopped, by: null };
    if ((await this.deps.store.settle(row.id, endOf(ending), this.deps.clock.now())) && row.messageId !== null) {
      await this.deps.posts
        .recordEdit(row.conversationId, row.runId, row.messageId, `${row.postText}\n\n${ending.outcome}`)
        .catch((err: unknown) => this.deps.logger.warn({ err }, 'closing the post of a stopped question failed'));
    }
    return { kind: 'refused', text: elicitationTexts.closed };
  }

  /** Ends the waits of local calls whose questions were settled elsewhere. */
  private async look(): Promise<void> {
    const ids = [...this.waiting.keys()];
    if (ids.length === 0) return;
    try {
      for (const row of await this.deps.store.settledAmong(ids)) this.waiting.get(row.id)?.learn(row);
    } catch (err) {
      this.deps.logger.warn({ err }, 'looking for answers given on other processes failed; looking again soon');
    }
  }

  private schedulePoll(): void {
    if (this.pollTimer !== null || this.waiting.size === 0) return;
    this.pollTimer = this.deps.clock.setTimer(() => {
      this.pollTimer = null;
      void this.look().finally(() => this.schedulePoll());
    }, this.deps.pollMs ?? DEFAULT_POLL_MS);
  }
}
