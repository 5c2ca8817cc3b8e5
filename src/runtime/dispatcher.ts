import { parseApprovalDecision } from '../agent/approval-decision.js';
import { channelOf, conversationKey, type ConversationRef } from '../chat/conversation-ref.js';
import { acceptAtOnce } from './accept-at-once.js';
import type { SessionStop } from '../chat/agent-session.js';
import type { CommandReply, InboundAction, InboundCommand, InboundMessage, InboundSink } from '../chat/inbound.js';
import { handleCommand } from '../commands/command-router.js';
import { titleFrom } from '../runs/goal-message.js';
import { MessageFollowUp } from './follow-ups/message-follow-up.js';
import type { Decision, StoredMessage } from './follow-ups/stored-message.js';
import { handleRunButton, type RunButtonDeps } from '../runs/runtime/run-buttons.js';
import { handleSessionStop } from '../runs/runtime/session-stop.js';
import { claimIn, type SlotHold } from '../runs/runtime/run-claim.js';
import { notices } from '../runs/run-notices.js';
import { createAccessPolicy, personOf, refusalText, type AccessPolicy } from '../access/access-policy.js';
import { createAuthority, type Authority } from '../runs/authority.js';
import { choosePrivateAnswer, type PrivateAnswerChoiceDeps } from '../runs/runtime/private-answer-choice.js';
import type { DispatcherDeps } from './dispatch-deps.js';

export type { DispatchData, DispatcherDeps, DispatchPlatforms, DispatchRules } from './dispatch-deps.js';

const NO_SCHEDULES = 'Schedules are not available in this installation.';

/** "stop", "cancel", "stop all", "cancel all" (any case, trailing punctuation): the fast stop path. */
function parseStopMessage(text: string): { all: boolean } | null {
  const m = /^\s*(?:stop|cancel)(\s+all)?\s*[.!]*\s*$/i.exec(text);
  return m ? { all: m[1] !== undefined } : null;
}

/**
 * Routes every inbound event: de-duplicate first (persisted), then stop fast path, answer to a
 * waiting question, queue behind a busy run, or start a run. The decision and the write happen in
 * one synchronous transaction, so a message arriving while a run finishes is never lost: it is either
 * a pending task the finishing run's successor claims, or it starts a run itself. What follows the write
 * is message-follow-up.ts's; a run's buttons are run-buttons.ts's.
 */
export class Dispatcher implements InboundSink {
  private readonly access: AccessPolicy;
  private readonly authority: Authority;
  private readonly followUp: MessageFollowUp;
  private readonly buttons: RunButtonDeps;
  private readonly choices: PrivateAnswerChoiceDeps;

  constructor(private readonly deps: DispatcherDeps) {
    const { data, coordinator, commands, logger, clock } = deps;
    this.access = deps.rules?.access ?? createAccessPolicy(undefined);
    this.authority =
      deps.rules?.authority ?? createAuthority({ access: this.access, runs: data.runs, tasks: data.tasks });
    this.followUp = new MessageFollowUp({
      runs: data.runs,
      tasks: data.tasks,
      coordinator,
      commands,
      changes: data.changes,
      notices: deps.platforms.notices,
      logger,
      clock,
      ...(deps.attachments ? { attachments: deps.attachments } : {}),
    });
    this.choices = { store: data.store, posts: data.changes, clock, logger };
    this.buttons = {
      runs: data.runs,
      conversations: data.conversations,
      dedupe: data.dedupe,
      coordinator,
      commands,
      access: this.access,
      authority: this.authority,
      clock,
      logger,
    };
  }

  /**
   * Resolves once the message is stored (de-duplication record plus its task, recorded answer or
   * stop), so an adapter may acknowledge the platform then. What follows — starting the run,
   * posting the "queued" note, announcing a stop — goes on without delaying that; its errors are logged.
   */
  async onMessage(message: InboundMessage): Promise<void> {
    const stored = await this.store(message);
    if (stored)
      void this.followUp
        .handle(stored)
        .catch((err: unknown) =>
          this.deps.logger.error({ err, messageId: message.messageId }, 'handling a stored message failed'),
        );
  }

  /** Called at shutdown: nothing it armed fires afterwards. */
  stop(): void {
    this.followUp.stop();
  }

  /** Whether Errand holds this conversation: one indexed lookup, so adapters may ask before any platform call. */
  async knowsConversation(ref: ConversationRef): Promise<boolean> {
    return (await this.deps.data.conversations.get(conversationKey(ref))) !== null;
  }

  private async store(message: InboundMessage): Promise<StoredMessage | null> {
    const { deps } = this;
    const ref0 = message.conversation;
    // Slack's `ts` is unique per channel only, so the channel is part of the key. Keys written
    // before it was are not consulted: a redelivery in the minutes around that upgrade may be answered once more.
    const dedupeKey = `msg:${ref0.platform}:${ref0.workspace}:${ref0.channel}:${message.messageId}`;
    if (!deps.platforms.has(ref0.platform)) {
      deps.logger.error({ platform: ref0.platform }, 'message from a platform without an adapter');
      return null;
    }
    const person = personOf(ref0.platform, message.userId, message.roles);
    const verdict = this.access.check(person, {
      platform: ref0.platform,
      channel: ref0.channel,
      direct: message.direct === true,
    });
    if (!verdict.allowed) {
      // No model call, no task: only the de-duplication record, so a redelivery is not refused twice.
      if (!(await deps.data.dedupe.firstSight(dedupeKey, deps.clock.now()))) return null;
      return { decision: { kind: 'denied', reason: verdict.reason }, ref: ref0, userId: message.userId };
    }
    const stop = parseStopMessage(message.text);
    // Read by primary key on a shared database; for one process, from memory after a person's first message of the day. Stops and answers are never refused.
    const budgetNote = stop
      ? null
      : ((await deps.rules?.budget?.refusalFor({ platform: ref0.platform, userId: message.userId })) ?? null);
    let ref: ConversationRef = ref0;
    // A refused request gets no thread of its own: the refusal is private and nothing else follows.
    const opensThread = message.startThread !== undefined && budgetNote === null;
    if (opensThread) {
      // De-duplicate before opening a thread, so a redelivery never opens a second one. The
      // thread's conversation is only known once it is open, so this path stores after that call.
      if (!(await deps.data.dedupe.firstSight(dedupeKey, deps.clock.now()))) return null;
      try {
        ref = await deps.platforms.threads.openThread(channelOf(ref0), message.messageId, message.startThread.name);
      } catch (err) {
        deps.logger.warn({ err }, 'opening a thread failed; answering in the channel');
      }
    }

    const intake = deps.attachments;
    const attachments = intake ? (message.attachments ?? []) : [];
    const empty = message.text.trim() === '';
    const request = !empty
      ? message.text
      : attachments.length > 0
        ? '(The user sent only attachments, without a message.)'
        : '(The user mentioned you without a message.)';
    const title = empty && attachments.length > 0 ? `📎 ${attachments[0]!.name}` : titleFrom(message.text);
    const description = intake && attachments.length > 0 ? intake.unreadRequest(request, attachments) : request;
    // Where the store accepts a mention in one call (PostgreSQL), a plain request is: de-duplication to claim.
    const atOnce = !stop && budgetNote === null && attachments.length === 0;
    const requester = { requestedBy: message.userId, requesterRoles: message.roles ?? null };
    const plain = {
      title,
      description,
      timezone: message.timezone ?? null,
      ...requester,
      sourceMessageId: message.messageId,
    };
    let hold: SlotHold | null = null;
    const accepts = atOnce ? deps.data.store.mentions : undefined;
    if (accepts) {
      hold = deps.data.claimWithMessage === true ? deps.coordinator.reserve(conversationKey(ref)) : null;
      const mention = { ...plain, dedupeKey: opensThread ? null : dedupeKey, ref };
      const accepted = await acceptAtOnce(accepts, mention, hold).catch((err: unknown) => {
        hold?.release();
        throw err;
      });
      if (accepted?.kind === 'duplicate') return this.duplicate(message);
      if (accepted) return { decision: accepted, ref, userId: message.userId };
    }
    const decision = await deps.data.store
      .atomically(async (tx): Promise<Decision> => {
        if (!opensThread && !(await tx.dedupe.firstSight(dedupeKey, deps.clock.now()))) return { kind: 'duplicate' };
        const conversationId = await tx.conversations.ensure(ref, message.timezone ?? null);
        if (stop) {
          const may = await (stop.all
            ? this.authority.mayStopAll(conversationId, person, tx)
            : this.authority.mayStop(conversationId, person, tx));
          if (!may) return { kind: 'refuse', conversationId, text: notices.notAllowedToStop };
          return { kind: 'stop', conversationId, all: stop.all };
        }
        const active = await tx.runs.active(conversationId);
        const approval = active?.status === 'waiting_user' ? active.question?.approval : undefined;
        if (active?.status === 'waiting_user') {
          const isDecision = approval === undefined || parseApprovalDecision(message.text) !== null;
          const allowed = this.authority.mayAnswer(active.question, person);
          // Someone else's decision word is refused; someone else's message to a waiting question becomes a to-do.
          if (isDecision && approval && !allowed)
            return { kind: 'refuse', conversationId, text: notices.notAllowedToDecide(active.question?.userId ?? '') };
          if (isDecision && allowed) {
            // Stored with the run, so the answer survives a crash before the run resumes.
            await tx.runs.recordAnswer(active.id, { text: message.text, userId: message.userId, source: 'typed' });
            return { kind: 'answer', runId: active.id };
          }
        }
        if (budgetNote !== null) return { kind: 'over_budget', conversationId, note: budgetNote };
        const added = await tx.tasks.add({
          conversationId,
          title,
          description,
          createdBy: 'user',
          ...requester,
          sourceMessageId: message.messageId,
        });
        if (!added.ok) throw new Error(added.error);
        // Held until its files are read (after the acknowledgement), so no run starts without them.
        if (intake && attachments.length > 0) await intake.hold(added.task.id, tx.attachments);
        const files = attachments.length > 0 ? { request, attachments } : null;
        // Claimed at once where it may be (nothing runs there, no files to read first, a slot free here). A body run
        // again after PostgreSQL broke a deadlock gives back the slot its first try took.
        hold?.release();
        hold =
          active === null && files === null && deps.data.claimWithMessage === true
            ? deps.coordinator.reserve(conversationId)
            : null;
        const claim = hold ? { hold, claimed: await claimIn(tx, conversationId, true) } : null;
        return {
          kind: 'task',
          conversationId,
          taskId: added.task.id,
          busy: active !== null,
          awaitingApproval: approval !== undefined,
          files,
          claim,
        };
      })
      .catch((err: unknown) => {
        hold?.release();
        throw err;
      });
    if (decision.kind === 'duplicate') return this.duplicate(message);
    return { decision, ref, userId: message.userId };
  }

  private duplicate(message: InboundMessage): null {
    this.deps.logger.debug({ messageId: message.messageId }, 'duplicate delivery ignored');
    return null;
  }

  async onCommand(command: InboundCommand): Promise<CommandReply> {
    const person = personOf(command.channel.platform, command.userId, command.roles);
    const verdict = this.access.check(person, {
      platform: command.channel.platform,
      channel: command.channel.channel,
      direct: command.direct === true,
    });
    if (!verdict.allowed) {
      this.deps.logger.info(
        {
          platform: command.channel.platform,
          channel: command.channel.channel,
          userId: command.userId,
          command: command.name,
          reason: verdict.reason,
        },
        'access refused',
      );
      return { text: refusalText(verdict.reason) };
    }
    try {
      return await handleCommand(command, this.deps.commands);
    } catch (err) {
      this.deps.logger.error({ err, command: command.name }, 'command failed');
      return { text: `Sorry, \`/${command.name}\` failed. The error was logged; try again in a moment.` };
    }
  }

  /** Slack's own Stop on a thread's session: like `/stop` in that thread (session-stop.ts). */
  async onSessionStop(stop: SessionStop): Promise<void> {
    const { data, coordinator, commands, platforms, clock, logger } = this.deps;
    const deps = {
      conversations: data.conversations,
      runs: data.runs,
      dedupe: data.dedupe,
      changes: data.changes,
      coordinator,
      commands,
      presence: platforms.presence,
      notices: platforms.notices,
      clock,
      logger,
    };
    await handleSessionStop(stop, { ...deps, access: this.access, authority: this.authority });
  }

  async onAction(action: InboundAction): Promise<CommandReply | null> {
    if (action.kind === 'private_answer') return choosePrivateAnswer(action, this.choices);
    if (action.kind !== 'schedule') return handleRunButton(action, this.buttons);
    const management = this.deps.scheduleManagement;
    if (!management) return { text: NO_SCHEDULES };
    const person = personOf(action.platform, action.userId, action.roles);
    try {
      return await management.editor.onAction(action, person);
    } catch (err) {
      this.deps.logger.error({ err, op: action.op, scheduleId: action.scheduleId }, 'schedule button failed');
      return { text: 'Sorry, that failed. The error was logged; try again in a moment.' };
    }
  }
}
