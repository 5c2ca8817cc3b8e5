import type { ClaimedTask, SlotHold } from './run-claim.js';

/**
 * The claims a coordinator has under way: conversations between the first await of a claim or resume and
 * the launch (taken before that await, so two callers in the same tick cannot both claim, and counted
 * against the slots), the claims' promises (so `idle()` can wait for them), and runs stopped meanwhile.
 */
export class ClaimsUnderWay {
  readonly conversations = new Set<string>();
  /** A run stopped while its launch was on its way (claimed, not yet executing): the launch is dropped. */
  readonly stoppedBeforeLaunch = new Map<string, string>();
  private readonly pending = new Set<Promise<void>>();

  /** Claims whose launch has not happened yet, to wait for. */
  get promises(): Promise<void>[] {
    return [...this.pending];
  }

  get count(): number {
    return this.pending.size;
  }

  /** Takes the conversation; the hold ends with `launch` (which calls `start`) or `release`. */
  take(conversationId: string, start: (claimed: ClaimedTask) => void): SlotHold {
    this.conversations.add(conversationId);
    let settle!: () => void;
    const claim = new Promise<void>((resolve) => (settle = resolve));
    this.pending.add(claim);
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      this.conversations.delete(conversationId);
      this.stoppedBeforeLaunch.delete(conversationId);
      this.pending.delete(claim);
      settle();
    };
    return {
      launch: (claimed) => {
        try {
          start(claimed);
          return { kind: 'started', taskId: claimed.task.id };
        } finally {
          release();
        }
      },
      release,
    };
  }
}
