import type { GatewayGate, GatewayTurn } from '../chat/gateway-gate.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { GatewayLock } from './gateway-lock.js';

export interface LockGatewayGateOptions {
  clock: Pick<Clock, 'setTimer' | 'clearTimer'>;
  logger: Logger;
  /** How long a holder whose connection attempt failed waits before trying again (the lock's retry interval). */
  retryMs: number;
}

export interface LockGatewayGate extends GatewayGate {
  /**
   * Called each time this process connected the gateway after its start: it took the gateway over (or
   * connected at last). Messages sent while no process held it were delivered to nobody: read them back.
   */
  onTakenOver(handler: () => void): void;
}

/**
 * The chat port's GatewayGate over the cluster's gateway lock: acquiring the lock connects the adapter's
 * gateway, losing it disconnects. Turns run one after another, so a loss that comes while connecting
 * disconnects once the connection attempt settled, never before. A holder whose connection attempt
 * failed tries again every `retryMs` while it holds the lock, since nobody else may connect meanwhile.
 */
export function createLockGatewayGate(lock: GatewayLock, options: LockGatewayGateOptions): LockGatewayGate {
  const { clock, logger, retryMs } = options;
  let turns: Promise<void> = Promise.resolve();
  let left = false;
  let joined = false;
  const takenOver: (() => void)[] = [];
  let retry: unknown = null;
  const enqueue = (step: () => Promise<void>) => {
    turns = turns.then(step);
    return turns;
  };
  const connect = (turn: GatewayTurn) =>
    enqueue(async () => {
      if (left || !lock.held) return;
      try {
        await turn.acquired();
      } catch (err) {
        if (left) return;
        logger.error({ err, retryMs }, 'connecting the gateway failed; trying again while holding it');
        retry = clock.setTimer(() => {
          retry = null;
          void connect(turn);
        }, retryMs);
        return;
      }
      if (!joined) return;
      for (const handler of takenOver) {
        try {
          handler();
        } catch (err) {
          logger.error({ err }, 'a gateway takeover handler failed');
        }
      }
    });
  const disconnect = (turn: GatewayTurn) =>
    enqueue(async () => {
      if (retry !== null) clock.clearTimer(retry);
      retry = null;
      await turn.lost().catch((err: unknown) => logger.error({ err }, 'disconnecting the gateway failed'));
    });
  return {
    async join(turn) {
      lock.onAcquired(() => void connect(turn));
      lock.onLost(() => void disconnect(turn));
      await lock.start();
      await turns;
      joined = true;
    },
    onTakenOver: (handler) => void takenOver.push(handler),
    get held() {
      return lock.held;
    },
    async leave() {
      left = true;
      if (retry !== null) clock.clearTimer(retry);
      retry = null;
      await lock.close();
      await turns;
    },
  };
}
