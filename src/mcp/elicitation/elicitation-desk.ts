import { randomBytes } from 'node:crypto';
import { ErrorCode, McpError, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { PostIntent } from '../../agent/agent-types.js';
import { elicitationActionId, type ElicitationEvent, type ElicitationReply } from '../../chat/elicitation-form.js';
import type { Clock } from '../../clock.js';
import type { Outbox } from '../../outbox/outbox.js';
import { checkAnswers } from './form-answers.js';
import { elicitationPostText, elicitationTexts, unsupportedNote } from './elicitation-texts.js';
import { MalformedElicitation, readRequestedElicitation, type RequestedElicitation } from './requested-form.js';
import type { ElicitationAsker, ElicitationScope } from './elicitation-scope.js';

export interface ElicitationDeskDeps {
  /** Where the question, its outcome and the private link go: the outbox, like every post. */
  readonly posts: Pick<Outbox, 'record' | 'delivered' | 'recordEdit' | 'recordEphemeral' | 'piecesOf'>;
  readonly clock: Clock;
  /** ASK_TIMEOUT_MINUTES: a question nobody answers is cancelled after it. */
  readonly askTimeoutMs: number;
  readonly logger: Logger;
  /** Whether a notice in this conversation reaches its person alone (a URL is then sent privately). */
  readonly privateIn: (conversationId: string) => boolean;
  readonly newId?: () => string;
}

/** A question waiting for its person. */
interface Waiting {
  readonly id: string;
  readonly scope: ElicitationScope;
  readonly platform: string;
  readonly principal: string;
  readonly request: Extract<RequestedElicitation, { mode: 'form' | 'url' }>;
  finish(result: ElicitResult, outcome: string): void;
}

/**
 * Asks a run's principal, in the run's thread, the questions MCP servers send during a tool call
 * (elicitation, MCP 2025-11-25), and brings back their answer. The question is posted with **Answer** (a
 * form) or, for a link, **Done**, and **Decline**; the adapters open the form and hand back what was entered
 * (SurfaceSink.onElicitation), checked here against the server's schema. Only the principal may answer; a
 * question ends as `accept` with content, `decline`, or `cancel` (the run stopped, or ASK_TIMEOUT_MINUTES
 * passed), and its post is edited to say how. While it waits, the call's own timeout does not count.
 *
 * Questions live with the call that asked them, in this process: the server holds the call open until the
 * answer comes. A restart ends the call (the model reads that it was interrupted, and may call again, when
 * the server asks anew); a button of a question whose call is gone says so to whoever clicks it.
 */
export class ElicitationDesk implements ElicitationAsker {
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly deps: ElicitationDeskDeps) {}

  /** Questions waiting now (tests, /healthz later). */
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
        .record(context.conversationId, context.runId, { purpose: 'note', text: unsupportedNote(scope.server, principal, request.reason) })
        .catch((err: unknown) => log.error({ err }, 'recording the note about a declined question failed'));
      return { action: 'decline', _meta: { 'errand/reason': `Errand cannot show this form to a person: ${request.reason}.` } };
    }
    if (scope.signal.aborted) return { action: 'cancel' };
    return this.wait(scope, request, principal, log);
  }

  /** A person acting on a question (SurfaceSink.onElicitation). */
  async handle(event: ElicitationEvent): Promise<ElicitationReply> {
    const w = this.waiting.get(event.id);
    if (!w) return { kind: 'refused', text: elicitationTexts.closed };
    if (event.platform !== w.platform || event.userId !== w.principal) return { kind: 'refused', text: elicitationTexts.notYours(w.scope.server, w.principal) };
    const by = event.userId;
    switch (event.kind) {
      case 'open':
        if (w.request.mode !== 'form') return { kind: 'refused', text: elicitationTexts.noForm };
        return { kind: 'form', form: { id: w.id, server: w.scope.server, message: w.request.message, fields: w.request.fields } };
      case 'submit': {
        if (w.request.mode !== 'form') return { kind: 'refused', text: elicitationTexts.noForm };
        const checked = checkAnswers(w.request.fields, event.values);
        if (!checked.ok) return { kind: 'errors', errors: checked.errors };
        w.finish({ action: 'accept', content: checked.content }, elicitationTexts.answeredBy(by));
        return { kind: 'answered', text: elicitationTexts.sent(w.scope.server) };
      }
      case 'decline':
        w.finish({ action: 'decline' }, elicitationTexts.declinedBy(by));
        return { kind: 'answered', text: elicitationTexts.declined(w.scope.server) };
      case 'done':
        if (w.request.mode !== 'url') return { kind: 'refused', text: elicitationTexts.noLink };
        w.finish({ action: 'accept' }, elicitationTexts.doneBy(by));
        return { kind: 'answered', text: elicitationTexts.toldDone(w.scope.server) };
    }
  }

  private wait(scope: ElicitationScope, request: Waiting['request'], principal: string, log: Logger): Promise<ElicitResult> {
    const { conversationId, runId, conversation } = scope.context;
    const id = this.deps.newId?.() ?? randomBytes(6).toString('hex');
    const linkPrivately = request.mode === 'url' && this.deps.privateIn(conversationId);
    const buttons =
      request.mode === 'form'
        ? [{ actionId: elicitationActionId(id, 'answer'), label: 'Answer', style: 'primary' as const }, { actionId: elicitationActionId(id, 'decline'), label: 'Decline' }]
        : [{ actionId: elicitationActionId(id, 'done'), label: 'Done', style: 'primary' as const }, { actionId: elicitationActionId(id, 'decline'), label: 'Decline' }];
    const intent: PostIntent = { purpose: 'question', text: elicitationPostText(scope, request, linkPrivately), mentionUserId: principal, buttons };
    return new Promise<ElicitResult>((resolve) => {
      let messageId: Promise<string | null> = Promise.resolve(null);
      let ended = false;
      const release = scope.hold();
      const timer = this.deps.clock.setTimer(() => finish({ action: 'cancel' }, elicitationTexts.timedOut), this.deps.askTimeoutMs);
      const onAbort = () => finish({ action: 'cancel' }, elicitationTexts.stopped);
      const finish = (result: ElicitResult, outcome: string) => {
        if (ended) return;
        ended = true;
        this.deps.clock.clearTimer(timer);
        scope.signal.removeEventListener('abort', onAbort);
        release();
        this.waiting.delete(id);
        log.info({ action: result.action }, 'an MCP server question ended');
        resolve(result);
        void this.showOutcome(conversationId, runId, messageId, intent, outcome, log);
      };
      this.waiting.set(id, { id, scope, platform: conversation.platform, principal, request, finish });
      scope.signal.addEventListener('abort', onAbort, { once: true });
      void (async () => {
        try {
          const ticket = await this.deps.posts.record(conversationId, runId, intent);
          if (linkPrivately && request.mode === 'url') await this.deps.posts.recordEphemeral(conversationId, principal, elicitationTexts.privateLink(scope.server, request.url));
          messageId = this.deps.posts.delivered(ticket);
          log.info({ elicitationId: id }, 'asked the person an MCP server question');
        } catch (err) {
          log.error({ err }, 'posting an MCP server question failed; cancelled it');
          finish({ action: 'cancel' }, elicitationTexts.stopped);
        }
      })();
    });
  }

  /** Edits the question's post to say how it ended (its buttons go), keeping the post's own text. */
  private async showOutcome(conversationId: string, runId: string, messageId: Promise<string | null>, intent: PostIntent, outcome: string, log: Logger): Promise<void> {
    try {
      const id = await messageId;
      if (id === null) return;
      const shown = this.deps.posts.piecesOf(conversationId, intent).at(-1)?.text ?? intent.text;
      await this.deps.posts.recordEdit(conversationId, runId, id, `${shown}\n\n${outcome}`);
    } catch (err) {
      log.warn({ err }, 'showing how an MCP server question ended failed');
    }
  }
}
