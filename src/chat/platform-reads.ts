import type { ConversationHistory } from './conversation-history.js';
import type { ConversationRef } from './conversation-ref.js';
import type { MemberRolesCapability } from './member-roles.js';

/**
 * What the core may read of a platform, held by whoever needs it (the history tools, catching up after a
 * restart, a schedule's rights, the timezone of a person): each member only reads, so holding it sends nothing.
 */
export interface PlatformReads {
  /** Platform name, the first part of every ConversationRef it produces. */
  readonly platform: string;
  readonly capabilities: ReadCapabilities;
}

/** What only some platforms can tell, each present only where the platform has it. */
export interface ReadCapabilities {
  /** Reading the platform's message history of a conversation. Absent where the platform keeps none. */
  readonly history?: ConversationHistory;
  /** People's IANA timezones, where the platform knows them (Slack; the console's own). */
  readonly timezone?: TimezoneLookup;
  /** People's roles in a workspace as they are now (Discord). Absent: the platform has no roles. */
  readonly memberRoles?: MemberRolesCapability;
  /** Who reads a conversation, where the platform can tell (absent: others are taken to read it). */
  readonly privateAnswers?: AudienceLookup;
}

export interface TimezoneLookup {
  /** The user's IANA timezone, or null when the platform does not say. */
  fetchUserTimezone(userId: string): Promise<string | null>;
}

export interface AudienceLookup {
  /** Whether people besides the one talking to the bot read the conversation: a channel, its threads, a group DM; false in a 1:1 DM. */
  othersRead(conversation: ConversationRef): boolean;
}
