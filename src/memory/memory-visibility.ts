import { channelKey, type ChannelRef } from '../chat/conversation-ref.js';
import { sharedWorkspaceOf } from '../chat/workspace-of.js';
import type { MemoryScope } from '../db/schema.js';
import type { MemoryVisibility } from './memory-store.js';

/** Whom a run acts for, as far as memories go. */
export interface MemoryPerson {
  readonly platform: string;
  readonly userId: string;
}

/** The key of a person's `me` memories and of what they stored: `platform:user`. */
export function personKey(person: MemoryPerson): string {
  return `${person.platform}:${person.userId}`;
}

/**
 * What a run may see: its principal's `me` memories, its channel's (a thread follows its channel, a DM is
 * its own channel) and its workspace's — none where the place is in no workspace (a Discord DM, in no server).
 * Built from the run, so no argument of the model can widen it.
 */
export function memoryVisibility(principal: MemoryPerson | null, place: ChannelRef): MemoryVisibility {
  return {
    person: principal ? personKey(principal) : null,
    channel: channelKey(place),
    workspace: sharedWorkspaceOf(place),
  };
}

/** The subject a new memory of `scope` gets in this run, or null when the run has no principal for `me`. */
export function subjectFor(scope: MemoryScope, visibility: MemoryVisibility): string | null {
  return scope === 'me' ? visibility.person : scope === 'channel' ? visibility.channel : visibility.workspace;
}

/** Whether a stored memory is one `visibility` allows. */
export function isVisible(memory: { scope: MemoryScope; subject: string }, visibility: MemoryVisibility): boolean {
  return memory.subject === subjectFor(memory.scope, visibility);
}
