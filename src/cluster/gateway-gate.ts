import type { GatewayGate, GatewayTurn } from '../chat/gateway-gate.js';
import type { Logger } from '../logger.js';
import type { GatewayLock } from './gateway-lock.js';

/**
 * The chat port's GatewayGate over the cluster's gateway lock: acquiring the lock connects the adapter's
 * gateway, losing it disconnects. Turns run one after another, so a loss that comes while connecting
 * disconnects once the connection attempt settled, never before.
 */
export function createLockGatewayGate(lock: GatewayLock, logger: Logger): GatewayGate {
  let turns: Promise<void> = Promise.resolve();
  const enqueue = (what: string, step: () => Promise<void>) => {
    turns = turns.then(step).catch((err: unknown) => logger.error({ err }, `gateway ${what} failed`));
    return turns;
  };
  return {
    async join(turn: GatewayTurn) {
      lock.onAcquired(() => void enqueue('connection', turn.acquired));
      lock.onLost(() => void enqueue('disconnection', turn.lost));
      await lock.start();
      await turns;
    },
    get held() {
      return lock.held;
    },
    async leave() {
      await lock.close();
      await turns;
    },
  };
}
