import type { ChannelRef, ConversationRef } from '../../src/chat/conversation-ref.js';
import { conversationKey } from '../../src/chat/conversation-ref.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Db } from '../../src/db/client.js';
import { silentLogger } from '../../src/logger.js';
import type { ScheduleLauncher } from '../../src/schedules/schedule-launcher.js';
import type { ScheduleStore } from '../../src/schedules/schedule-store.js';
import { createScheduling, type Scheduling } from '../../src/schedules/scheduling.js';
import { createSqliteStore } from '../../src/composition/sqlite-store.js';
import { FakeClock } from '../fakes/fake-clock.js';

/** What a recording launcher saw: which way the schedule fired, when, with what. */
export interface LaunchRecord {
  readonly via: 'thread' | 'channel';
  readonly at: number;
  readonly scheduleId: number;
  readonly prompt: string;
  readonly conversationId?: string;
  readonly channel?: ChannelRef;
}

/**
 * A ScheduleLauncher that records every launch; `failWith` (a message or an error) makes the next launches reject.
 * A launch that goes through is marked started, as the runtime's launcher marks it with the task it queues.
 */
export class RecordingLauncher implements ScheduleLauncher {
  readonly launches: LaunchRecord[] = [];
  failWith: string | Error | null = null;

  constructor(
    private readonly clock: FakeClock,
    private readonly store: Pick<ScheduleStore, 'endLaunch'>,
  ) {}

  async queueInConversation(
    conversationId: string,
    prompt: string,
    scheduleId: number,
    launchId?: number,
  ): Promise<void> {
    this.launches.push({ via: 'thread', at: this.clock.now(), scheduleId, prompt, conversationId });
    await this.went(launchId);
  }

  async startInChannel(channel: ChannelRef, prompt: string, scheduleId: number, launchId?: number): Promise<void> {
    this.launches.push({ via: 'channel', at: this.clock.now(), scheduleId, prompt, channel });
    await this.went(launchId);
  }

  private async went(launchId: number | undefined): Promise<void> {
    if (this.failWith) throw typeof this.failWith === 'string' ? new Error(this.failWith) : this.failWith;
    if (launchId !== undefined) await this.store.endLaunch(launchId, 'started', null, this.clock.now());
  }
}

export const CHANNEL: ChannelRef = { platform: 'memory', workspace: 'W1', channel: 'C1' };
export const THREAD: ConversationRef = { ...CHANNEL, thread: 'T1' };
export const THREAD_ID = conversationKey(THREAD);
/** Monday 5 January 2026, 09:00 UTC. */
export const START = Date.UTC(2026, 0, 5, 9, 0, 0);
export const MINUTE = 60_000;

export interface ScheduleWorld extends Scheduling {
  readonly db: Db;
  readonly clock: FakeClock;
  readonly launcher: RecordingLauncher;
  /** A second scheduling stack over the same database, as after a process restart. */
  restart(): ScheduleWorld;
}

/** An in-memory database, a fake clock and the scheduling stack over them (not started). */
export function scheduleWorld(env: Record<string, string> = {}, shared?: { db: Db; clock: FakeClock }): ScheduleWorld {
  const db = shared?.db ?? openDatabase(':memory:');
  const clock = shared?.clock ?? new FakeClock(START);
  const config = loadConfig({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', ...env });
  const store = createSqliteStore(db, clock).schedules;
  const scheduling = createScheduling({ store, clock, logger: silentLogger(), config });
  const launcher = new RecordingLauncher(clock, store);
  return { ...scheduling, db, clock, launcher, restart: () => scheduleWorld(env, { db, clock }) };
}

/** Lets launches settle (they are promises) after the clock fired them. */
export async function settle(world: ScheduleWorld): Promise<void> {
  await world.scheduler.idle();
}
