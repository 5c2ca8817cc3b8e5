import type { SessionStop } from '../../src/chat/agent-session.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import type { CommandReply, InboundAction, InboundCommand, InboundMessage, InboundSink } from '../../src/chat/inbound.js';
import type { HomeModel, HomeRequest, ScheduleFormResult, ScheduleFormSubmission } from '../../src/chat/schedule-form.js';
import type { SurfaceSink } from '../../src/chat/surface-sink.js';
import type { ElicitationEvent, ElicitationReply } from '../../src/chat/elicitation-form.js';
import type { DisconnectRequest } from '../../src/chat/home-connections.js';

/** An InboundSink that records what an adapter hands to the core. */
export class RecordingSink implements InboundSink {
  readonly messages: InboundMessage[] = [];
  readonly commands: InboundCommand[] = [];
  readonly actions: InboundAction[] = [];
  commandReply: CommandReply = { text: 'command reply' };
  /** Conversations `knowsConversation` answers true for (what the core would have stored). */
  readonly known: ConversationRef[] = [];

  async onMessage(message: InboundMessage): Promise<void> {
    this.messages.push(message);
  }

  async knowsConversation(conversation: ConversationRef): Promise<boolean> {
    return this.known.some((k) => k.platform === conversation.platform && k.workspace === conversation.workspace && k.channel === conversation.channel && k.thread === conversation.thread);
  }

  async onCommand(command: InboundCommand): Promise<CommandReply> {
    this.commands.push(command);
    return this.commandReply;
  }

  async onAction(action: InboundAction): Promise<CommandReply | null> {
    this.actions.push(action);
    return null;
  }

  readonly sessionStops: SessionStop[] = [];

  async onSessionStop(stop: SessionStop): Promise<void> {
    this.sessionStops.push(stop);
  }
}

/** A SurfaceSink that records App Home openings and form submissions, and answers them plainly. */
export class RecordingSurfaces implements SurfaceSink {
  readonly homes: HomeRequest[] = [];
  readonly submissions: ScheduleFormSubmission[] = [];
  formResult: ScheduleFormResult = { kind: 'saved', text: 'Saved the schedule 9901.' };

  async onHomeOpened(request: HomeRequest): Promise<HomeModel> {
    this.homes.push(request);
    return { conversations: [], schedules: [], newSchedule: null };
  }

  async onScheduleForm(submission: ScheduleFormSubmission): Promise<ScheduleFormResult> {
    this.submissions.push(submission);
    return this.formResult;
  }

  readonly elicitations: ElicitationEvent[] = [];
  elicitationReply: ElicitationReply = { kind: 'refused', text: 'This question is closed.' };

  async onElicitation(event: ElicitationEvent): Promise<ElicitationReply> {
    this.elicitations.push(event);
    return this.elicitationReply;
  }

  readonly disconnects: DisconnectRequest[] = [];

  async onDisconnect(request: DisconnectRequest): Promise<string> {
    this.disconnects.push(request);
    return `Disconnected ${request.server}.`;
  }
}
