import type { CarriedOverElicitation, ElicitationEvent, ElicitationReply } from './elicitation-form.js';
import type { DisconnectRequest } from './home-connections.js';
import type { HomeModel, HomeRequest, ScheduleFormResult, ScheduleFormSubmission } from './schedule-form.js';

/**
 * The way in for platform surfaces beyond the conversation: Slack's App Home, the schedule forms
 * (Slack and Discord modals) and the forms of MCP servers' questions (elicitation). Kept apart from
 * InboundSink because only some platforms have them: an adapter started without one shows no Home and
 * opens no forms.
 */
export interface SurfaceSink {
  /** The person's conversations with work under way and the schedules of their channels. */
  onHomeOpened(request: HomeRequest): Promise<HomeModel>;
  /** A submitted schedule form: saved, field errors, or an interpretation of plain words to confirm. */
  onScheduleForm(submission: ScheduleFormSubmission): Promise<ScheduleFormResult>;
  /**
   * A person acting on an MCP server's question (its **Answer** / **Decline** / **Done** buttons, or its
   * form): the form to open, field errors, the answer sent, or a private refusal.
   */
  onElicitation(event: ElicitationEvent): Promise<ElicitationReply>;
  /**
   * The MCP questions carried over a restart that still wait for `userId` on `platform`, oldest first: a surface whose
   * posts do not outlive its process (the console) puts them to the person again when it starts. Absent: none.
   */
  carriedOverElicitations?(platform: string, userId: string): Promise<readonly CarriedOverElicitation[]>;
  /** A Disconnect click on the App Home's Connections section: the person's tokens for the server go; the answer says so. */
  onDisconnect(request: DisconnectRequest): Promise<string>;
}
