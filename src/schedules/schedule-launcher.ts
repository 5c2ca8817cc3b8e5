import type { ChannelRef } from '../chat/conversation-ref.js';

/**
 * Why one attempt to launch a fired schedule did not queue its run, as a value (a target that is gone, or any
 * other failure that will not pass by itself, is thrown instead):
 * - `elsewhere`: the launch is finished, or another attempt (this process's or another's) holds it: nothing to record;
 * - `interrupted`: Errand is stopping; the launch stays pending and the next start finishes it;
 * - `retry`: a failure that passes by itself (the platform failing for a moment); tried again from `at`;
 * - `refused`: the schedule's creator no longer has the rights it needs (removed from `access`, a role gone): it is
 *   paused and never runs with rights they had once; `reason` says which, for its fail reason;
 * - `dropped`: the schedule was deleted before its run could be queued.
 */
export type LaunchSetback =
  | { readonly kind: 'elsewhere' | 'interrupted' | 'dropped' }
  | { readonly kind: 'retry'; readonly reason: string; readonly at: number }
  | { readonly kind: 'refused'; readonly reason: string };

/**
 * What a firing schedule asks of the runtime. The runtime implements it; the scheduler
 * never touches adapters or runs directly. `launchId` names the fire's pending launch (schedule_launches),
 * which the runtime finishes once the run is queued; without one (tests) nothing durable is kept.
 * Resolves with nothing when the run is queued — and then, given a `launchId`, the launcher has marked the launch
 * `started` in the very write that queued the run (the scheduler writes nothing more on a fire's path) — or with why not.
 */
export interface ScheduleLauncher {
  /** Thread target: queue the prompt as a task in that conversation (it runs when idle). */
  queueInConversation(
    conversationId: string,
    prompt: string,
    scheduleId: number,
    launchId?: number,
  ): Promise<LaunchSetback | void>;
  /** Channel target: post a top-level message, open a thread on it, and run the prompt there. */
  startInChannel(
    channel: ChannelRef,
    prompt: string,
    scheduleId: number,
    launchId?: number,
  ): Promise<LaunchSetback | void>;
}
