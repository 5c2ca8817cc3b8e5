import type { AccessPolicy, Person } from '../access/access-policy.js';
import type { OutboundButton } from '../chat/chat-adapter.js';
import { scheduleActionId } from '../chat/action-id.js';
import type { ScheduleRow } from '../db/schema.js';

/**
 * Who may manage which schedule from a button or a form: someone allowed to use Errand in the
 * schedule's channel, who is in that channel (where the platform tells), and who may create
 * channel schedules — or, for a schedule repeating in a thread, the person who created it.
 */
export interface ScheduleRights {
  /** Null when allowed; else the sentence to show (on the field, or privately). */
  refusal(person: Person, channel: string, memberOf: ReadonlySet<string> | null, row?: Pick<ScheduleRow, 'target' | 'createdBy'>): string | null;
  mayCreate(person: Person): boolean;
}

export function createScheduleRights(access: AccessPolicy): ScheduleRights {
  return {
    mayCreate: (person) => access.mayCreateChannelSchedules(person),
    refusal(person, channel, memberOf, row) {
      if (!access.check(person, { platform: person.platform, channel, direct: false }).allowed) return "Errand isn't enabled for you in that channel. Choose another channel, or ask an admin.";
      if (memberOf !== null && !memberOf.has(channel)) return 'You are not in that channel. Choose a channel you are in.';
      const ownThreadSchedule = row?.target === 'thread' && row.createdBy === person.userId;
      if (!ownThreadSchedule && !access.mayCreateChannelSchedules(person)) return 'Only admins may manage schedules that post into a channel here. Ask an admin.';
      return null;
    },
  };
}

/** Pause or Resume (by status), Edit and Delete: the buttons one schedule gets. */
export function scheduleButtons(row: Pick<ScheduleRow, 'id' | 'status'>): OutboundButton[] {
  const toggle: OutboundButton[] =
    row.status === 'active'
      ? [{ actionId: scheduleActionId('pause', row.id), label: `Pause #${row.id}` }]
      : row.status === 'completed'
        ? []
        : [{ actionId: scheduleActionId('resume', row.id), label: `Resume #${row.id}`, style: 'primary' }];
  return [...toggle, { actionId: scheduleActionId('edit', row.id), label: `Edit #${row.id}` }, { actionId: scheduleActionId('delete', row.id), label: `Delete #${row.id}`, style: 'danger' }];
}
