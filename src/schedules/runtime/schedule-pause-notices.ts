import type { AccessPolicy } from '../../access/access-policy.js';
import type { ConversationStore } from '../../conversations/conversation-store.js';
import type { ScheduleRow } from '../../db/schema.js';
import type { Logger } from '../../logger.js';
import type { OutboxChanges } from '../../outbox/outbox.js';
import { titleFrom } from '../../runs/goal-message.js';

/**
 * Tells a schedule's creator and the admins named in `access.admins`, each privately (Slack: a notice only they see
 * in the schedule's channel; Discord: a direct message), that the schedule was paused and why — the creator so they
 * know their prompt no longer runs, the admins so they can resume it once the creator may run it again. A notice
 * that cannot reach someone (not in that channel, direct messages closed) is logged by the outbox and skipped.
 */
export function schedulePauseNotices(deps: {
  access: Pick<AccessPolicy, 'adminsOn'>;
  conversations: Pick<ConversationStore, 'ensure'>;
  outbox: Pick<OutboxChanges, 'recordSecret'>;
  logger: Logger;
}) {
  return async (schedule: ScheduleRow, reason: string): Promise<void> => {
    const where =
      schedule.target === 'thread' && schedule.conversationId !== null
        ? schedule.conversationId
        : await deps.conversations.ensure({
            platform: schedule.platform,
            workspace: schedule.workspace,
            channel: schedule.channel,
            thread: null,
          });
    const what = `#${schedule.id} (“${titleFrom(schedule.prompt)}”)`;
    const creator = schedule.createdBy === 'agent' ? null : schedule.createdBy;
    if (creator !== null) {
      await deps.outbox.recordSecret(
        where,
        creator,
        `⏸️ Your schedule ${what} is paused and did not run: ${reason}. It runs again only once an admin resumes it.`,
      );
    }
    for (const admin of deps.access.adminsOn(schedule.platform)) {
      if (admin === creator) continue;
      await deps.outbox.recordSecret(
        where,
        admin,
        `⏸️ Schedule ${what}${creator ? ` of <@${creator}>` : ''} is paused and did not run: ${reason}. Resume it (\`/schedules resume ${schedule.id}\`) once it may run again.`,
      );
    }
    deps.logger.info({ scheduleId: schedule.id }, 'told the creator and the admins that a schedule was paused');
  };
}
