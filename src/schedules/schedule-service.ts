import type { ChannelRef } from '../chat/conversation-ref.js';
import type { Clock } from '../clock.js';
import type { ScheduleRow } from '../db/schema.js';
import type { ScheduleRunResult } from '../run-records/run-store.js';
import { failureChange, successChange } from './schedule-failures.js';
import type { Scheduler } from './scheduler.js';
import type { ScheduleStore } from './schedule-store.js';
import { describeTiming, nextRuns, parseScheduleSpec, type ParsedSpec, type ScheduleKind } from './schedule-timing.js';
import { formatInZone } from './zoned-time.js';

/** Expected failures are values: the message says what was wrong and how to fix it. */
/** A scheduled prompt as the rest of Errand sees it. */
export type Schedule = ScheduleRow;

export type ScheduleResult = { ok: true; schedule: ScheduleRow } | { ok: false; error: string };

export interface CreateScheduleInput {
  channel: ChannelRef;
  /** `thread` queues the prompt in `conversationId`; `channel` starts a new thread each time. */
  target: 'channel' | 'thread';
  conversationId: string | null;
  prompt: string;
  kind: ScheduleKind;
  spec: string;
  timezone: string;
  /** Whom its runs act for: the person who asked for it, or the principal of the run that made it. */
  createdBy: string;
  /**
   * That person's Discord role ids when it was made, kept for the record only: each fire reads their roles as they
   * are then (runtime/schedules/schedule-creator-rights.ts), so a role taken away is never carried on by a schedule.
   */
  creatorRoles?: readonly string[] | null;
}

export interface ScheduleLimits {
  minIntervalMinutes: number;
  maxActivePerChannel: number;
}

/**
 * Create, list, pause, resume and delete schedules, keeping the scheduler's timers in step
 * with the table: this process's at once, the other processes' on the same database through
 * `announce` after each change is written. Every id is looked up within the caller's channel,
 * so one channel can never touch another's schedules.
 */
export class ScheduleService {
  constructor(
    private readonly store: ScheduleStore,
    private readonly scheduler: Pick<Scheduler, 'arm' | 'disarm'>,
    private readonly clock: Clock,
    private readonly limits: ScheduleLimits,
    /** Tells the other processes that a schedule changed (they re-read it); called after the write. Default: nobody to tell. */
    private readonly announce: (scheduleId: number) => void = () => undefined,
  ) {}

  /**
   * Records how a scheduled run ended: a completed run clears the failure count; a run that stopped
   * because its target is gone counts as a failed run (paused after PAUSE_AFTER_FAILURES in a row).
   */
  async recordRunResult(id: number, result: ScheduleRunResult): Promise<void> {
    const row = await this.store.get(id);
    if (!row) return;
    const now = this.clock.now();
    if (result.ok) {
      const change = successChange(row);
      if (change) await this.store.update(id, change, now);
      return;
    }
    const when = row.lastRunAt !== null ? ` at ${formatInZone(row.lastRunAt, row.timezone)}` : '';
    const updated = await this.store.update(
      id,
      failureChange(row, `The run${when} could not post: ${result.reason}`),
      now,
    );
    if (updated && updated.status !== 'active') {
      this.scheduler.disarm(id);
      this.announce(id);
    }
  }

  async create(input: CreateScheduleInput): Promise<ScheduleResult> {
    const prompt = input.prompt.trim();
    if (prompt === '')
      return { ok: false, error: 'The prompt is empty. Say what should be done when the schedule fires.' };
    if (input.target === 'thread' && !input.conversationId)
      return { ok: false, error: 'A thread target needs a conversation; use target "channel" here.' };
    const now = this.clock.now();
    const parsed = parseScheduleSpec(input.kind, input.spec, input.timezone, now, this.limits);
    if (!parsed.ok) return parsed;
    const full = await this.checkRoom(input.channel);
    if (full) return full;
    const row = await this.store.insert({
      platform: input.channel.platform,
      workspace: input.channel.workspace,
      channel: input.channel.channel,
      target: input.target,
      conversationId: input.target === 'thread' ? input.conversationId : null,
      prompt,
      kind: input.kind,
      spec: parsed.spec,
      timezone: parsed.timezone,
      status: 'active',
      anchorAt: now,
      nextRunAt: parsed.firstRunAt,
      createdBy: input.createdBy,
      creatorRoles: input.creatorRoles && input.creatorRoles.length > 0 ? [...input.creatorRoles] : null,
      createdAt: now,
    });
    this.scheduler.arm(row);
    this.announce(row.id);
    return { ok: true, schedule: row };
  }

  /**
   * This channel's schedules, oldest first: every live one (active, paused, error) and only the
   * `recentCompleted` latest completed one-offs, so the list does not grow forever.
   */
  async list(channel: ChannelRef, recentCompleted = 5): Promise<ScheduleRow[]> {
    const rows = await this.store.listInChannel(channel);
    const completed = rows.filter((r) => r.status === 'completed');
    const keep = new Set(completed.slice(Math.max(0, completed.length - recentCompleted)));
    return rows.filter((r) => r.status !== 'completed' || keep.has(r));
  }

  /** A schedule by id in any channel: callers check the person's rights on its channel themselves. */
  async find(id: number): Promise<ScheduleRow | null> {
    return await this.store.get(id);
  }

  async get(channel: ChannelRef, id: number): Promise<ScheduleResult> {
    const row = await this.store.get(id);
    if (
      !row ||
      row.platform !== channel.platform ||
      row.workspace !== channel.workspace ||
      row.channel !== channel.channel
    ) {
      return {
        ok: false,
        error: `There is no schedule #${id} in this channel. /schedules (or the list_schedules tool) shows the ids.`,
      };
    }
    return { ok: true, schedule: row };
  }

  async pause(channel: ChannelRef, id: number): Promise<ScheduleResult> {
    const found = await this.get(channel, id);
    if (!found.ok) return found;
    if (found.schedule.status !== 'active')
      return {
        ok: false,
        error: `Schedule #${id} is ${found.schedule.status}, not active, so there is nothing to pause.`,
      };
    this.scheduler.disarm(id);
    const updated = await this.store.update(id, { status: 'paused', nextRunAt: null }, this.clock.now());
    this.announce(id);
    return this.saved(updated, found.schedule);
  }

  /** Re-arms a paused (or errored) schedule from now on: missed times while paused are not made up. */
  async resume(channel: ChannelRef, id: number): Promise<ScheduleResult> {
    const found = await this.get(channel, id);
    if (!found.ok) return found;
    const row = found.schedule;
    if (row.status === 'active') return { ok: false, error: `Schedule #${id} is already active.` };
    if (row.status === 'completed')
      return { ok: false, error: `Schedule #${id} already ran and is completed. Create a new schedule instead.` };
    const now = this.clock.now();
    const next = nextRuns(row, now, 1)[0];
    if (next === undefined)
      return {
        ok: false,
        error: `Schedule #${id} has no future fire time (a one-off time that has passed). Create a new schedule instead.`,
      };
    const full = await this.checkRoom(channel);
    if (full) return full;
    const updated = await this.store.update(
      id,
      { status: 'active', nextRunAt: next, failReason: null, consecutiveFailures: 0 },
      now,
    );
    if (updated) this.scheduler.arm(updated);
    this.announce(id);
    return this.saved(updated, row);
  }

  /**
   * Changes what and when (same rules and messages as create). Timing starts over from now; a paused
   * schedule stays paused, any other one becomes active with its new first fire time.
   */
  async edit(
    channel: ChannelRef,
    id: number,
    input: Pick<CreateScheduleInput, 'prompt' | 'kind' | 'spec' | 'timezone'>,
  ): Promise<ScheduleResult> {
    const found = await this.get(channel, id);
    if (!found.ok) return found;
    const prompt = input.prompt.trim();
    if (prompt === '')
      return { ok: false, error: 'The prompt is empty. Say what should be done when the schedule fires.' };
    const now = this.clock.now();
    const parsed = parseScheduleSpec(input.kind, input.spec, input.timezone, now, this.limits);
    if (!parsed.ok) return parsed;
    const paused = found.schedule.status === 'paused';
    if (!paused && found.schedule.status !== 'active') {
      const full = await this.checkRoom(channel);
      if (full) return full;
    }
    this.scheduler.disarm(id);
    const updated = await this.store.update(
      id,
      {
        prompt,
        kind: input.kind,
        spec: parsed.spec,
        timezone: parsed.timezone,
        anchorAt: now,
        status: paused ? 'paused' : 'active',
        nextRunAt: paused ? null : parsed.firstRunAt,
        failReason: null,
        consecutiveFailures: 0,
      },
      now,
    );
    if (updated) this.scheduler.arm(updated);
    this.announce(id);
    return this.saved(updated, found.schedule);
  }

  async delete(channel: ChannelRef, id: number): Promise<ScheduleResult> {
    const found = await this.get(channel, id);
    if (!found.ok) return found;
    this.scheduler.disarm(id);
    await this.store.delete(id);
    this.announce(id);
    return found;
  }

  /** Checks a timing with this installation's limits, exactly as create and edit do: the form shows the same messages. */
  checkTiming(kind: ScheduleKind, spec: string, timezone: string): ParsedSpec {
    return parseScheduleSpec(kind, spec, timezone, this.clock.now(), this.limits);
  }

  /** A human-readable description and the next `count` fire times (from now) of a schedule. */
  preview(row: ScheduleRow, count = 3): { description: string; nextRuns: number[] } {
    const upcoming =
      row.status === 'active' && row.nextRunAt !== null
        ? [row.nextRunAt, ...nextRuns(row, row.nextRunAt, count - 1)]
        : [];
    return { description: describeTiming(row), nextRuns: upcoming.slice(0, count) };
  }

  private async checkRoom(channel: ChannelRef): Promise<{ ok: false; error: string } | null> {
    const active = await this.store.countActiveInChannel(channel);
    if (active < this.limits.maxActivePerChannel) return null;
    return {
      ok: false,
      error: `This channel already has ${active} active schedules (the maximum is ${this.limits.maxActivePerChannel}). Pause or delete one first.`,
    };
  }

  private saved(row: ScheduleRow | null, fallback: ScheduleRow): ScheduleResult {
    return { ok: true, schedule: row ?? fallback };
  }
}
