import type { NextAsk } from '../../run-records/run-end.js';
import type { ClaimedTask } from './run-claim.js';

/**
 * One run's end that may claim the next work in its settlement's call (`RunWrites.settleNext`, PostgreSQL): what the
 * call is asked, and what it answered. Taken while the run still holds its slot (it is in `active`); read once the
 * run has left it (`NextClaims.afterEnd`).
 */
export interface NextTicket {
  readonly ask: NextAsk;
  /** Set by the settler as soon as the call answered: the run it claimed (null: none), and whether to pump. */
  answer?: { readonly claimed: ClaimedTask | null; readonly more: boolean };
  /** `NextClaims`'s count of turned-away starts when the ticket was taken. */
  readonly turnedAway: number;
}

/** What a run's end does once the run has left `active`: launch what its settlement claimed, and pump or not. */
export interface AfterEnd {
  /** The run the settlement claimed, to launch now under the slot the ended run left (null: none). */
  readonly launch: ClaimedTask | null;
  /** Whether the pump runs after it, as it did after every run's end before. */
  readonly pump: boolean;
}

/**
 * A run's slot handed from its end to the next run its settlement claimed (issue 40, eleventh round). The claim is
 * a claim in the database, so it cannot go stale; what can is the call's "nothing more is due": work that came while
 * the call was under way may have been written after its read. Every such work is followed, once written, by a start
 * asked here (`startNext`, `pump`, an answer's resume), and this process turns it away while the run still holds its
 * slot: so a turned-away start since the ticket was taken makes the pump run after all, as it always ran. A run
 * stopped while a call is under way that is not executing here may be the call's claim: it is remembered, by run id,
 * and not launched (as `stoppedBeforeLaunch` does for a claim of a conversation taken beforehand).
 */
export class NextClaims {
  private outstanding = 0;
  private turned = 0;
  private readonly stopped = new Set<string>();

  /** A start (or an answer's resume) turned away here: no slot, or its conversation busy. */
  turnedAway(): void {
    this.turned++;
  }

  /** A run was stopped that is not executing here: a call under way may have claimed it (then it is not launched). */
  stoppedElsewhere(runId: string): void {
    if (this.outstanding > 0) this.stopped.add(runId);
  }

  /**
   * The ticket for the end of `conversationId`'s run, while the run is in `active`: the other busy conversations, and
   * the slots open once it has left (its own among them). Each ticket is given back once, to `afterEnd`.
   */
  ticket(
    conversationId: string,
    active: ReadonlyMap<string, unknown>,
    claiming: ReadonlySet<string>,
    maxRuns: number,
  ): NextTicket {
    this.outstanding++;
    const exclude = new Set([...active.keys(), ...claiming]);
    exclude.delete(conversationId);
    return { ask: { slots: Math.max(1, maxRuns - exclude.size), exclude }, turnedAway: this.turned };
  }

  /**
   * What the end of a run does now that it has left `active` (`ticket`: its ticket, if one was taken). The claimed
   * run is launched unless the process is stopping (it stays `running` with this process's lease, which the shutdown
   * releases for another process, or the next start, to take over and run) or it was stopped meanwhile. The pump
   * runs unless the call answered that nothing more is due and nothing was turned away since.
   */
  afterEnd(ticket: NextTicket | undefined, stopping: boolean): AfterEnd {
    if (ticket) this.outstanding--;
    const answer = ticket?.answer;
    const claimed = answer?.claimed ?? null;
    const stopped = claimed !== null && this.stopped.delete(claimed.run.id);
    if (this.outstanding === 0) this.stopped.clear();
    if (stopping) return { launch: null, pump: false };
    const stale = !ticket || !answer || answer.more || ticket.turnedAway !== this.turned;
    return { launch: stopped ? null : claimed, pump: stale || stopped };
  }
}
