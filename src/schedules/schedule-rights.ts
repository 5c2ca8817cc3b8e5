import type { AccessPolicy, Person } from '../access/access-policy.js';
import type { ScheduleRow } from '../db/schema.js';

/** A change to a schedule, as the one rights check sees it. */
export interface ScheduleChange {
  /** The schedule as stored now; absent for a new one. */
  readonly row?: Pick<ScheduleRow, 'target' | 'createdBy' | 'channel'>;
  /** Where and how it posts after the change; absent when that does not change (pause, resume, delete). */
  readonly after?: { readonly channel: string; readonly target: 'channel' | 'thread' };
  /**
   * Check the person may use Errand in the channels involved and, where the platform tells (`memberOf`), is in
   * them: for buttons, forms and commands. A run's tools pass null: the run already passed that check in its channel.
   */
  readonly place: { readonly memberOf: ReadonlySet<string> | null } | null;
}

/**
 * The one rights check every path that changes a schedule goes through (tools, commands, buttons, forms):
 * a schedule that posts into a channel — before or after the change — needs the right to create channel
 * schedules (`access.schedules`); a schedule repeating in a thread is its creator's own. `person` is null for a
 * run without a principal: then only what everyone may do is allowed.
 */
export interface ScheduleRights {
  /** Null when allowed; else the sentence to show (on the field, privately, or to the model). */
  refusal(person: Person | null, change: ScheduleChange): string | null;
  mayCreate(person: Person | null): boolean;
}

const ONLY_ADMINS = 'Only admins may manage schedules that post into a channel here. Ask an admin.';

export function createScheduleRights(access: AccessPolicy): ScheduleRights {
  const mayCreate = (person: Person | null) => (person ? access.mayCreateChannelSchedules(person) : !access.configured);
  return {
    mayCreate,
    refusal(person, { row, after, place }) {
      if (place) {
        for (const channel of new Set([row?.channel, after?.channel].filter((c): c is string => c !== undefined))) {
          if (!person || !access.check(person, { platform: person.platform, channel, direct: false }).allowed)
            return "Errand isn't enabled for you in that channel. Choose another channel, or ask an admin.";
          if (place.memberOf !== null && !place.memberOf.has(channel))
            return 'You are not in that channel. Choose a channel you are in.';
        }
      }
      const ownThreadSchedule = row?.target === 'thread' && person !== null && row.createdBy === person.userId;
      if (row && !ownThreadSchedule && !mayCreate(person)) return ONLY_ADMINS;
      if (after?.target === 'channel' && !mayCreate(person)) return ONLY_ADMINS;
      return null;
    },
  };
}
