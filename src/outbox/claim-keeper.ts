import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { OutboxClaim } from '../store/outbox-store.js';

/** A claim being renewed for as long as a worker's turn lasts. */
export interface ClaimKeeper {
  /** True once a renewal found that another process took the claim: the worker stops after the post in flight. */
  lost(): boolean;
  /** Stops renewing (the turn ended). */
  stop(): void;
}

/**
 * Renews a conversation's outbox claim on its own schedule, so a long turn keeps it and a process
 * that died lets it lapse. A failed renewal is retried; a refused one means another process has it.
 */
export function keepClaim(
  claim: OutboxClaim,
  deps: { readonly clock: Clock; readonly logger: Logger; readonly conversationId: string },
): ClaimKeeper {
  const { clock, logger, conversationId } = deps;
  let lost = false;
  let stopped = false;
  let timer: unknown = null;
  const every = claim.renewEveryMs;
  const arm = () => {
    if (every === null || stopped) return;
    timer = clock.setTimer(() => {
      timer = null;
      claim.renew().then(
        (ok) => {
          if (ok) return arm();
          lost = true;
          logger.warn(
            { conversationId },
            'another process took over posting to this conversation; this one stops after the post in flight',
          );
        },
        (err: unknown) => {
          logger.warn({ err, conversationId }, 'renewing an outbox claim failed; trying again');
          arm();
        },
      );
    }, every);
  };
  arm();
  return {
    lost: () => lost,
    stop: () => {
      stopped = true;
      if (timer !== null) clock.clearTimer(timer);
    },
  };
}
