import type { AccessPolicy } from '../../access/access-policy.js';
import type { ScheduleRights } from '../schedule-rights.js';
import type { MemberRolesCapability } from '../../chat/member-roles.js';
import type { ThreadOpener } from '../../outbox/thread-opener.js';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { Outbox } from '../../outbox/outbox.js';
import type { ScheduleLauncher } from '../schedule-launcher.js';
import type { RunCoordinator } from '../../runs/runtime/run-coordinator.js';
import { creatorRightsAtFire } from './schedule-creator-rights.js';
import { createScheduleLauncher, type StoreWithSchedules } from './schedule-launcher-impl.js';
import { schedulePauseNotices } from './schedule-pause-notices.js';

/** The schedule launcher as the app runs it: durable launches, the creator's rights checked at each fire, pauses told. */
export function scheduleLauncherFor(deps: {
  /** Whether a platform is connected. */
  platforms: { has(platform: string): boolean };
  /** A platform's member roles, where it has them (the adapter's capability). */
  memberRoles: (platform: string) => MemberRolesCapability | undefined;
  store: StoreWithSchedules;
  outbox: Outbox;
  threads: ThreadOpener;
  coordinator: RunCoordinator;
  access: AccessPolicy;
  rights: ScheduleRights;
  clock: Clock;
  logger: Logger;
  stopping: AbortSignal;
}): ScheduleLauncher {
  const { store, outbox, access, logger } = deps;
  return createScheduleLauncher({
    platforms: deps.platforms,
    store,
    posts: outbox,
    threads: deps.threads,
    coordinator: deps.coordinator,
    rightsAtFire: creatorRightsAtFire({ access, rights: deps.rights, memberRoles: deps.memberRoles }),
    tellPaused: schedulePauseNotices({ access, conversations: store.conversations, outbox, logger }),
    clock: deps.clock,
    logger,
    stopping: deps.stopping,
  });
}
