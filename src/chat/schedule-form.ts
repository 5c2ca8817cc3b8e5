import type { HomeConnections } from './home-connections.js';
import type { HomeSkills } from './home-skills.js';
import type { OutboundButton } from './outbound-button.js';
import type { ChannelRef, ConversationRef } from './conversation-ref.js';

/**
 * The schedule form (Slack modal, Discord modal) in platform-neutral terms. Adapters render
 * and read it; the core validates it with the same rules and messages as `schedule_prompt`.
 */
export type ScheduleFormField = 'channel' | 'prompt' | 'when' | 'timezone';

/** What the form holds: as typed, or prefilled for Edit (`when` = cron, minutes or an ISO time). */
export interface ScheduleFormValues {
  /** The platform channel id the schedule posts into. */
  readonly channel: string;
  readonly prompt: string;
  /** A 5-field cron, a number of minutes, an ISO 8601 date-time, or plain words the model turns into one of those. */
  readonly when: string;
  readonly timezone: string;
}

/** A form to open: `scheduleId` null for a new schedule. `note` is shown above the fields (an interpretation to confirm). */
export interface ScheduleFormRequest {
  readonly scheduleId: number | null;
  readonly values: ScheduleFormValues;
  readonly note?: string;
}

/** Someone submitting the form. */
export interface ScheduleFormSubmission {
  readonly platform: string;
  readonly workspace: string;
  readonly userId: string;
  readonly roles?: readonly string[];
  readonly scheduleId: number | null;
  readonly values: ScheduleFormValues;
  /** The channels the person is in, where the platform tells (Slack); null: not known (Discord, where the form's channel is where it was opened). */
  readonly memberOf: ReadonlySet<string> | null;
  /**
   * Who submits, when that is not `userId` on `platform` (an admin in the web console, signed in from another
   * platform): the rights checked are theirs. Absent: the person is `userId` on `platform`.
   */
  readonly actingAs?: { readonly platform: string; readonly userId: string; readonly roles?: readonly string[] };
}

/**
 * What a submission did. `errors` go on the fields (Slack `response_action: errors`; Discord an
 * ephemeral reply with a button to reopen the form). `confirm`: the `when` words were read by the
 * model; the form comes back with the interpretation and the exact spec filled in, to submit again.
 */
export type ScheduleFormResult =
  | { readonly kind: 'saved'; readonly text: string }
  | {
      readonly kind: 'errors';
      readonly errors: Partial<Record<ScheduleFormField, string>>;
      readonly form: ScheduleFormRequest;
    }
  | { readonly kind: 'confirm'; readonly form: ScheduleFormRequest };

/** Who opened the App Home (or any schedule overview), and the channels they are in. */
export interface HomeRequest {
  readonly platform: string;
  readonly workspace: string;
  readonly userId: string;
  readonly roles?: readonly string[];
  /** Channel ids the person is in; their schedules are shown. */
  readonly channels: readonly string[];
}

/** A conversation of the person with work under way or queued. */
export interface HomeConversation {
  readonly conversation: ConversationRef;
  readonly title: string;
  readonly state: 'running' | 'waiting' | 'pending';
  /** Pending tasks after the current one. */
  readonly pending: number;
  /** A Stop button when a run is active and the person may stop it. */
  readonly stop: OutboundButton | null;
}

/** One schedule with its buttons (Pause or Resume, Edit, Delete), as the person may use them. */
export interface HomeSchedule {
  readonly id: number;
  readonly channel: ChannelRef;
  /** Markdown: description, next run, status, prompt. */
  readonly text: string;
  readonly buttons: readonly OutboundButton[];
}

/** The App Home, platform-neutral. */
export interface HomeModel {
  readonly conversations: readonly HomeConversation[];
  readonly schedules: readonly HomeSchedule[];
  /** The New schedule button, when the person may create schedules. */
  readonly newSchedule: OutboundButton | null;
  /** The person's MCP sign-ins with Disconnect buttons; absent where no server asks people to sign in. */
  readonly connections?: HomeConnections;
  /** What Errand remembers about the person (`me` memories), newest first; absent: memory is not wired. */
  readonly memories?: readonly HomeMemory[];
  /** The skills enabled here, and for admins those held back; absent: skills are not wired. */
  readonly skills?: HomeSkills;
}

/** One of the person's memories on the App Home. */
export interface HomeMemory {
  readonly id: number;
  readonly text: string;
  /** When it was remembered (epoch ms). */
  readonly createdAt: number;
}
