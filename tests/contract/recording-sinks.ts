import type { SessionStop } from '../../src/chat/agent-session.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import type {
  CommandReply,
  InboundAction,
  InboundCommand,
  InboundMessage,
  InboundSink,
} from '../../src/chat/inbound.js';
import type {
  HomeModel,
  HomeRequest,
  ScheduleFormResult,
  ScheduleFormSubmission,
} from '../../src/chat/schedule-form.js';
import type { SurfaceSink } from '../../src/chat/surface-sink.js';
import type { ElicitationEvent, ElicitationReply } from '../../src/chat/elicitation-form.js';
import type { DisconnectRequest } from '../../src/chat/home-connections.js';

/**
 * What a broken adapter would hand the core instead of what it got: each hook rewrites (or, null, drops) one kind
 * of event on its way in. The suite sets one to show a contract test fails when an adapter hands over the wrong
 * thing; null (the default) passes everything as it came.
 */
export interface InboundTamper {
  message?(message: InboundMessage): InboundMessage | readonly InboundMessage[] | null;
  command?(command: InboundCommand): InboundCommand;
  action?(action: InboundAction): InboundAction | null;
  sessionStop?(stop: SessionStop): SessionStop | null;
}

/** The same for the surfaces: what a broken adapter would hand over from the Home and the forms. */
export interface SurfaceTamper {
  home?(request: HomeRequest): HomeRequest;
  form?(submission: ScheduleFormSubmission): ScheduleFormSubmission;
  elicitation?(event: ElicitationEvent): ElicitationEvent;
  disconnect?(request: DisconnectRequest): DisconnectRequest;
}

/** An InboundSink that records what an adapter hands to the core. */
export class RecordingSink implements InboundSink {
  readonly messages: InboundMessage[] = [];
  readonly commands: InboundCommand[] = [];
  readonly actions: InboundAction[] = [];
  commandReply: CommandReply = { text: 'command reply' };
  /** Conversations `knowsConversation` answers true for (what the core would have stored). */
  readonly known: ConversationRef[] = [];
  /** What a click answers (a schedule button's reply is shown to the clicker). */
  clickReply: CommandReply | null = null;
  /** Set by the suite to stand for a broken adapter's inbound side. */
  tamper: InboundTamper | null = null;

  async onMessage(message: InboundMessage): Promise<void> {
    const handed = this.tamper?.message ? this.tamper.message(message) : message;
    if (handed) this.messages.push(...(Array.isArray(handed) ? handed : [handed as InboundMessage]));
  }

  async knowsConversation(conversation: ConversationRef): Promise<boolean> {
    return this.known.some(
      (k) =>
        k.platform === conversation.platform &&
        k.workspace === conversation.workspace &&
        k.channel === conversation.channel &&
        k.thread === conversation.thread,
    );
  }

  async onCommand(command: InboundCommand): Promise<CommandReply> {
    this.commands.push(this.tamper?.command ? this.tamper.command(command) : command);
    return this.commandReply;
  }

  async onAction(action: InboundAction): Promise<CommandReply | null> {
    const handed = this.tamper?.action ? this.tamper.action(action) : action;
    if (handed) this.actions.push(handed);
    return this.clickReply;
  }

  readonly sessionStops: SessionStop[] = [];

  async onSessionStop(stop: SessionStop): Promise<void> {
    const handed = this.tamper?.sessionStop ? this.tamper.sessionStop(stop) : stop;
    if (handed) this.sessionStops.push(handed);
  }
}

/** A SurfaceSink that records App Home openings and form submissions, and answers them plainly. */
export class RecordingSurfaces implements SurfaceSink {
  readonly homes: HomeRequest[] = [];
  readonly submissions: ScheduleFormSubmission[] = [];
  formResult: ScheduleFormResult = { kind: 'saved', text: 'Saved the schedule 9901.' };
  /** The App Home the core answers with. */
  homeModel: HomeModel = { conversations: [], schedules: [], newSchedule: null };
  /** Set by the suite to stand for a broken adapter's surfaces. */
  tamper: SurfaceTamper | null = null;

  async onHomeOpened(request: HomeRequest): Promise<HomeModel> {
    this.homes.push(this.tamper?.home ? this.tamper.home(request) : request);
    return this.homeModel;
  }

  async onScheduleForm(submission: ScheduleFormSubmission): Promise<ScheduleFormResult> {
    this.submissions.push(this.tamper?.form ? this.tamper.form(submission) : submission);
    return this.formResult;
  }

  readonly elicitations: ElicitationEvent[] = [];
  elicitationReply: ElicitationReply = { kind: 'refused', text: 'This question is closed.' };
  /** Answers each event as the core would (the form to open, the answer sent); absent: `elicitationReply` for all. */
  elicitationReplies: ((event: ElicitationEvent) => ElicitationReply) | null = null;

  async onElicitation(event: ElicitationEvent): Promise<ElicitationReply> {
    const handed = this.tamper?.elicitation ? this.tamper.elicitation(event) : event;
    this.elicitations.push(handed);
    return this.elicitationReplies ? this.elicitationReplies(handed) : this.elicitationReply;
  }

  readonly disconnects: DisconnectRequest[] = [];

  async onDisconnect(request: DisconnectRequest): Promise<string> {
    const handed = this.tamper?.disconnect ? this.tamper.disconnect(request) : request;
    this.disconnects.push(handed);
    return `Disconnected ${handed.server}.`;
  }
}
