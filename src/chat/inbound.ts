import type { ScheduleOp } from './action-id.js';
import type { SessionStop } from './agent-session.js';
import type { OutboundButton } from './outbound-button.js';
import type { ChannelRef, ConversationRef } from './conversation-ref.js';
import type { ScheduleFormRequest } from './schedule-form.js';

/**
 * A file on a person's message. The adapter gives its metadata at once and a way to download it
 * later, so the core reads the bytes after the event is stored (and acknowledged), never before.
 */
export interface InboundAttachment {
  readonly name: string;
  /** MIME type as the platform reports it; empty when it gives none (the name's extension then decides). */
  readonly mimeType: string;
  /** Size in bytes as the platform reports it, checked against the caps before downloading. */
  readonly size: number;
  /** Downloads the file with whatever credentials the platform needs; rejects when it cannot. */
  fetch(signal: AbortSignal): Promise<Uint8Array>;
}

/** A person's message, normalised by an adapter. Adapters drop bot and self messages before this. */
export interface InboundMessage {
  /** Platform message id; with the platform and workspace it de-duplicates redeliveries. */
  readonly messageId: string;
  /** Where the message belongs (the thread for thread replies and Slack mentions). */
  readonly conversation: ConversationRef;
  /**
   * Set when the conversation should become a new thread rooted at this message (Discord
   * mention in a channel): the runtime opens it through the thread opener (src/outbox/thread-opener.ts) after de-duplication.
   */
  readonly startThread?: { readonly name: string };
  readonly userId: string;
  readonly userName?: string;
  /** Text with the bot's own mention removed. */
  readonly text: string;
  /** IANA timezone of the author, when the adapter already knows it. */
  readonly timezone?: string;
  /** A direct message (DM) rather than a channel or its thread: access rules treat DMs on their own. */
  readonly direct?: boolean;
  /** The author's Discord role ids, where the platform gives them (access rules may name roles). */
  readonly roles?: readonly string[];
  /** Files on the message (Slack `files`, Discord attachments), in the order the platform lists them. */
  readonly attachments?: readonly InboundAttachment[];
}

/** The slash commands every adapter wires, in the order they are listed to people. */
export const COMMAND_NAMES = [
  'tasks',
  'stop',
  'schedules',
  'usage',
  'connections',
  'memory',
  'help',
  'skills',
  'admin',
] as const;

export type CommandName = (typeof COMMAND_NAMES)[number];

/** Whether a typed word names one of the commands. */
export function isCommandName(word: string): word is CommandName {
  return (COMMAND_NAMES as readonly string[]).includes(word);
}

export interface InboundCommand {
  readonly name: CommandName;
  /** Everything after the command name, trimmed. */
  readonly args: string;
  readonly channel: ChannelRef;
  /** The thread the command was used in; null when the platform gives none (Slack): act channel-wide. */
  readonly conversation: ConversationRef | null;
  readonly userId: string;
  readonly direct?: boolean;
  readonly roles?: readonly string[];
}

/** A button click, decoded from the action id the runtime put on the button. */
export type InboundAction =
  | {
      readonly kind: 'stop';
      readonly runId: string;
      readonly userId: string;
      /** Where the button was clicked; null outside any conversation (Slack App Home): the run's own conversation counts. */
      readonly conversation: ConversationRef | null;
      readonly roles?: readonly string[];
      readonly direct?: boolean;
    }
  | {
      readonly kind: 'schedule';
      /** `new` opens an empty form; `edit` a prefilled one; the others act at once. */
      readonly op: ScheduleOp | 'new';
      readonly scheduleId: number | null;
      readonly platform: string;
      readonly workspace: string;
      readonly userId: string;
      /** The channel the click came from (a new schedule's default); null on the Slack App Home. */
      readonly channel: ChannelRef | null;
      /** The channels the person is in where the platform tells (Slack); null: not known. */
      readonly memberOf: ReadonlySet<string> | null;
      readonly roles?: readonly string[];
      readonly direct?: boolean;
    }
  | {
      readonly kind: 'answer';
      readonly runId: string;
      /** The question the clicked button belongs to (from its action id); null on buttons that do not say. */
      readonly questionId: string | null;
      /** The option's label, used as the answer text. */
      readonly answer: string;
      readonly userId: string;
      readonly conversation: ConversationRef;
      /** Platform id of the click (de-duplication). */
      readonly eventId: string;
      readonly roles?: readonly string[];
      readonly direct?: boolean;
    }
  | {
      /** A **Share in thread** / **Keep private** click on an answer held for its owner (src/chat/private-answers.ts). */
      readonly kind: 'private_answer';
      readonly choice: 'share' | 'keep';
      /** The held answer (its id in the action id). */
      readonly answerId: number;
      readonly platform: string;
      readonly userId: string;
    };

/** What a command or action answers; Markdown, shown ephemerally where the platform can. */
export interface CommandReply {
  readonly text: string;
  /** Buttons under the text (Stop per running task, Pause/Resume/Edit/Delete per schedule). */
  readonly buttons?: readonly OutboundButton[];
  /** Open the schedule form instead of (Slack, Discord) or besides the text: `/schedules add`, Edit. */
  readonly form?: ScheduleFormRequest;
  /** The App Home (Slack) shows something else now: adapters that keep one re-render it. */
  readonly homeChanged?: boolean;
}

/**
 * The one way back into the core for what people say and click. Adapters call it and never import
 * agent/, tasks/, schedules/ or db/. Each method resolves once the event is safely persisted (fast),
 * not when the work it starts is done. The App Home and forms come in through SurfaceSink.
 */
export interface InboundSink {
  /** Resolves once the message, its de-duplication record and what it asks for are stored; throws when storing failed. */
  onMessage(message: InboundMessage): Promise<void>;
  /**
   * Whether the core already holds this conversation (the bot took part in it). One indexed lookup,
   * so an adapter asks it before any platform lookup to decide whether a reply is for the bot.
   */
  knowsConversation(conversation: ConversationRef): Promise<boolean>;
  onCommand(command: InboundCommand): Promise<CommandReply>;
  onAction(action: InboundAction): Promise<CommandReply | null>;
  /**
   * Someone pressed the platform's own Stop on a thread's session: resolves once the stop is recorded (or
   * refused). Absent on sinks that take no such stops.
   */
  onSessionStop?(stop: SessionStop): Promise<void>;
}
