import type { OutboundButton } from '../../chat/outbound-button.js';
import { scheduleActionId } from '../../chat/action-id.js';
import type { ScheduleRow } from '../../db/schema.js';

/** Pause or Resume (by status), Edit and Delete: the buttons one schedule gets. */
export function scheduleButtons(row: Pick<ScheduleRow, 'id' | 'status'>): OutboundButton[] {
  const toggle: OutboundButton[] =
    row.status === 'active'
      ? [{ actionId: scheduleActionId('pause', row.id), label: `Pause #${row.id}` }]
      : row.status === 'completed'
        ? []
        : [{ actionId: scheduleActionId('resume', row.id), label: `Resume #${row.id}`, style: 'primary' }];
  return [
    ...toggle,
    { actionId: scheduleActionId('edit', row.id), label: `Edit #${row.id}` },
    { actionId: scheduleActionId('delete', row.id), label: `Delete #${row.id}`, style: 'danger' },
  ];
}
