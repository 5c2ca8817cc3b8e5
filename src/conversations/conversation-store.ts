import type { ChannelRef, ConversationRef } from '../chat/conversation-ref.js';
import type { ConversationRow } from '../db/schema.js';

/** The registry of conversations: one row per thread of talk, keyed `platform:workspace:channel:thread`. */
export interface ConversationStore {
  /** Creates the row on first sight; records the speaker's timezone when known. Returns the key. */
  ensure(ref: ConversationRef, timezone?: string | null): Promise<string>;
  get(id: string): Promise<ConversationRow | null>;
  /** The ref of a stored conversation; null for unknown or malformed keys. */
  refOf(id: string): ConversationRef | null;
  /** Every conversation of a channel. Unbounded: prefer listWithOpenWork for commands. */
  listInChannel(channel: ChannelRef): Promise<ConversationRow[]>;
  /**
   * Conversations of a channel with a pending or in-progress task or an active run (what Slack's
   * channel-wide `/tasks` and `/stop` act on). Reads only open work, through partial indexes on a
   * key range, so a channel with years of finished threads answers as fast as a new one.
   */
  listWithOpenWork(channel: ChannelRef): Promise<ConversationRow[]>;
}
