import type { RunPosts } from '../../agent/agent-types.js';
import type { ChannelRef } from '../../chat/conversation-ref.js';
import type { ThreadOpener } from '../../outbox/thread-opener.js';
import type { Clock } from '../../clock.js';
import type { ScheduleRow } from '../../db/schema.js';
import { AdapterError, isTargetGone } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { LaunchSetback, ScheduleLauncher } from '../schedule-launcher.js';
import type { ScheduleLaunchRow, ScheduleStore } from '../schedule-store.js';
import type { StoreWith } from '../../store/store.js';
import type { CreatorVerdict } from './schedule-creator-rights.js';
import { titleFrom } from '../../runs/goal-message.js';
import type { RunCoordinator } from '../../runtime/runs/run-coordinator.js';

/** Wait before attempt n + 1 after a failure that passes by itself: 30 s, doubling, at most 15 minutes. */
const retryDelayMs = (attempts: number) => Math.min(15 * 60_000, 30_000 * 2 ** Math.max(0, attempts - 1));

/** The core Store with the schedules' store beside it (the whole store, ErrandStore, is one), in a transaction too. */
export type StoreWithSchedules = StoreWith<{ readonly schedules: ScheduleStore }>;

export interface ScheduleLauncherDeps {
  /** Whether the platform is connected: a schedule of another fails at once, with nothing posted. */
  platforms: { has(platform: string): boolean };
  /** Transactions, the schedule and its launch, conversations and tasks. */
  store: Pick<StoreWithSchedules, 'atomically' | 'schedules' | 'conversations'>;
  posts: Pick<RunPosts, 'record' | 'delivered'>;
  threads: ThreadOpener;
  coordinator: Pick<RunCoordinator, 'pump'>;
  /** The creator's rights at this fire (schedule-creator-rights.ts); rejects when they cannot be read now. */
  rightsAtFire(schedule: ScheduleRow): Promise<CreatorVerdict>;
  /** Tells the creator and the admins, privately, that the schedule is paused and why. */
  tellPaused(schedule: ScheduleRow, reason: string): Promise<void>;
  clock: Clock;
  logger: Logger;
  /**
   * Aborted when Errand stops: a fire waiting for its post (a platform failing for a moment) then stops waiting;
   * its launch stays pending and the next start finishes it (the post itself stays recorded in the outbox).
   */
  stopping?: AbortSignal;
}

/** The launch was finished by another attempt meanwhile (a conditional write matched nothing): this one's writes roll back. */
class LaunchTakenElsewhere extends Error {}

/** The run can never start (its conversation is gone): the launch fails for good instead of being tried again. */
class LaunchImpossible extends Error {}

/**
 * How a fired schedule becomes work, durably: a task in an existing conversation (it runs when that conversation is
 * idle), or a top-level post in a channel with a thread opened on it. Each fire's pending launch (written with the
 * fire) is claimed, its creator's rights are checked as they are now, the channel post is recorded in the outbox and
 * waited for, and the task is queued in the same transaction that marks the launch started: Errand may stop (or
 * crash) at any point in between and the next start — or another process — finishes it, never twice. A failure that
 * passes by itself leaves the launch pending for a retry with backoff; a target that is gone is thrown, as before.
 */
export function createScheduleLauncher(deps: ScheduleLauncherDeps): ScheduleLauncher {
  const { store, clock } = deps;
  const now = () => clock.now();

  /** Queues the prompt in `conversationId` and ends the launch, in one transaction; then the conversation is pumped. */
  const queue = async (
    conversationId: string,
    launch: ScheduleLaunchRow | null,
    schedule: ScheduleRow,
    principal: CreatorVerdict & { kind: 'allowed' },
  ): Promise<LaunchSetback | void> => {
    const queued = await store
      .atomically(async (tx) => {
        // The schedule's creator is the task's principal (roles as read now): they decide its approvals, pay for it, may stop it.
        const added = await tx.tasks.add({
          conversationId,
          title: `⏰ ${titleFrom(launch?.prompt ?? schedule.prompt)}`,
          description: launch?.prompt ?? schedule.prompt,
          createdBy: 'schedule',
          scheduleId: schedule.id,
          requestedBy: principal.principal?.userId ?? null,
          requesterRoles: principal.principal?.roles ?? null,
          fromSchedule: true,
        });
        if (!added.ok) throw new Error(added.error);
        if (launch && !(await tx.schedules.endLaunch(launch.id, 'started', null, now())))
          throw new LaunchTakenElsewhere();
        return true;
      })
      .catch((err: unknown) => {
        if (err instanceof LaunchTakenElsewhere) return false;
        throw err;
      });
    if (!queued) return { kind: 'elsewhere' };
    await deps.coordinator.pump(conversationId);
  };

  /** Records the channel post once per launch (with the launch, in one transaction) and returns its outbox row. */
  const notePosted = async (
    channel: ChannelRef,
    launch: ScheduleLaunchRow | null,
    schedule: ScheduleRow,
  ): Promise<number | null> => {
    if (launch?.noteOutboxId != null) return launch.noteOutboxId;
    const inChannel = await store.conversations.ensure({ ...channel, thread: null });
    const text = `⏰ **Scheduled prompt #${schedule.id}:** ${launch?.prompt ?? schedule.prompt}`;
    return store
      .atomically(async (tx) => {
        const last = (await deps.posts.record(inChannel, null, { purpose: 'note', text }, tx)).at(-1) ?? null;
        if (launch && last !== null && !(await tx.schedules.setLaunchNote(launch.id, last, now())))
          throw new LaunchTakenElsewhere();
        return last;
      })
      .catch((err: unknown) => {
        if (err instanceof LaunchTakenElsewhere) return null;
        throw err;
      });
  };

  /** One attempt at a launch the scheduler claimed: rights, then the work of the target. Transient failures come back as `retry`. */
  const attempt = async (
    scheduleId: number,
    launchId: number | undefined,
    work: (
      launch: ScheduleLaunchRow | null,
      schedule: ScheduleRow,
      verdict: CreatorVerdict & { kind: 'allowed' },
    ) => Promise<LaunchSetback | void>,
  ): Promise<LaunchSetback | void> => {
    const launch = launchId === undefined ? null : await store.schedules.launch(launchId);
    if (launchId !== undefined && launch?.status !== 'pending') return { kind: 'elsewhere' };
    const end = async (status: 'refused' | 'dropped' | 'failed', error: string | null) => {
      if (launch) await store.schedules.endLaunch(launch.id, status, error, now());
    };
    const schedule = await store.schedules.get(scheduleId);
    if (!schedule) {
      await end('dropped', 'the schedule was deleted before its run was queued');
      return { kind: 'dropped' };
    }
    try {
      const verdict = await deps.rightsAtFire(schedule);
      if (verdict.kind === 'refused') {
        await end('refused', verdict.reason);
        await deps
          .tellPaused(schedule, verdict.reason)
          .catch((err: unknown) => deps.logger.warn({ err, scheduleId }, 'telling of a paused schedule failed'));
        return { kind: 'refused', reason: verdict.reason };
      }
      return await work(launch, schedule, verdict);
    } catch (err) {
      if (isTargetGone(err) || err instanceof LaunchImpossible) {
        await end('failed', err instanceof Error ? err.message : String(err));
        throw err;
      }
      const reason = err instanceof Error ? err.message : String(err);
      if (!launch) throw err;
      const at = now() + retryDelayMs(launch.attempts);
      await store.schedules.delayLaunch(launch.id, at, reason, now());
      return { kind: 'retry', reason, at };
    }
  };

  return {
    async queueInConversation(conversationId, _prompt, scheduleId, launchId) {
      return attempt(scheduleId, launchId, async (launch, schedule, verdict) => {
        if (!(await store.conversations.get(conversationId)))
          throw new LaunchImpossible(`the conversation ${conversationId} no longer exists`);
        return queue(conversationId, launch, schedule, verdict);
      });
    },
    async startInChannel(channel: ChannelRef, _prompt, scheduleId, launchId) {
      if (!deps.platforms.has(channel.platform)) {
        if (launchId !== undefined)
          await store.schedules.endLaunch(launchId, 'failed', `no ${channel.platform} adapter is connected`, now());
        throw new Error(`no ${channel.platform} adapter is connected`);
      }
      return attempt(scheduleId, launchId, async (launch, schedule, verdict) => {
        const noteId = await notePosted(channel, launch, schedule);
        if (noteId === null) return { kind: 'elsewhere' };
        // A channel that is gone rejects here (the schedule records it); a post that failed otherwise resolves null.
        const posted = await deps.posts.delivered([noteId], deps.stopping);
        if (posted === null) {
          if (deps.stopping?.aborted) {
            // Finished after the next start, at once: the claim is given back.
            if (launch)
              await store.schedules.delayLaunch(launch.id, now(), 'Errand stopped before the post went out', now());
            return { kind: 'interrupted' };
          }
          // The outbox gave up on it: the next attempt posts it anew.
          if (launch) await store.schedules.setLaunchNote(launch.id, null, now());
          throw new AdapterError(`the scheduled prompt could not be posted in ${channel.channel}`);
        }
        const thread = await deps.threads.openThread(
          channel,
          posted,
          `⏰ ${titleFrom(launch?.prompt ?? schedule.prompt)}`.slice(0, 100),
        );
        return queue(await store.conversations.ensure(thread), launch, schedule, verdict);
      });
    },
  };
}
