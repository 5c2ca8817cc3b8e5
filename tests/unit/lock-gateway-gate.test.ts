import { describe, expect, it } from 'vitest';
import type { GatewayLock } from '../../src/cluster/gateway-lock.js';
import { createLockGatewayGate } from '../../src/cluster/lock-gateway-gate.js';
import { silentLogger } from '../../src/logger.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { waitFor } from '../fakes/wait-for.js';

/** A gateway lock driven by the test: `take()` and `lose()` fire the handlers as the real lock does. */
function scriptedLock(heldAtStart: boolean) {
  const acquired: (() => void)[] = [];
  const lost: (() => void)[] = [];
  const state = { held: false, closed: false };
  const lock: GatewayLock = {
    async start() {
      if (heldAtStart) take();
    },
    get held() {
      return state.held;
    },
    onAcquired: (h) => void acquired.push(h),
    onLost: (h) => void lost.push(h),
    async close() {
      state.closed = true;
      state.held = false;
    },
  };
  const take = () => {
    state.held = true;
    for (const h of acquired) h();
  };
  const lose = () => {
    state.held = false;
    for (const h of lost) h();
  };
  return { lock, take, lose, state };
}

describe('gateway gate over the gateway lock', () => {
  it('connects when the lock is taken, before join resolves, and disconnects when it is lost', async () => {
    const s = scriptedLock(true);
    const gate = createLockGatewayGate(s.lock, { clock: new FakeClock(), logger: silentLogger(), retryMs: 1000 });
    const log: string[] = [];
    await gate.join({ acquired: async () => void log.push('connect'), lost: async () => void log.push('disconnect') });
    expect(log).toEqual(['connect']);
    expect(gate.held).toBe(true);
    s.lose();
    await waitFor(() => log.length === 2);
    expect(log).toEqual(['connect', 'disconnect']);
    expect(gate.held).toBe(false);
  });

  it('a loss during a connection attempt disconnects only after the attempt settled', async () => {
    const s = scriptedLock(false);
    const gate = createLockGatewayGate(s.lock, { clock: new FakeClock(), logger: silentLogger(), retryMs: 1000 });
    const log: string[] = [];
    let finishConnect = () => {};
    await gate.join({
      acquired: () => new Promise<void>((resolve) => (finishConnect = () => (log.push('connected'), resolve()))),
      lost: async () => void log.push('disconnect'),
    });
    s.take();
    await waitFor(() => s.state.held);
    s.lose();
    finishConnect();
    await waitFor(() => log.length === 2);
    expect(log).toEqual(['connected', 'disconnect']);
  });

  it('a holder whose connection attempt failed tries again after the retry interval, and stops trying once it left', async () => {
    const s = scriptedLock(true);
    const clock = new FakeClock();
    const gate = createLockGatewayGate(s.lock, { clock, logger: silentLogger(), retryMs: 1000 });
    let attempts = 0;
    const acquired = async () => {
      attempts++;
      if (attempts === 1) throw new Error('gateway unreachable');
    };
    await gate.join({ acquired, lost: async () => undefined });
    expect(attempts).toBe(1);
    await waitFor(() => clock.pendingTimers() === 1);
    clock.advance(1000);
    await waitFor(() => attempts === 2);
    expect(clock.pendingTimers()).toBe(0);
    await gate.leave();
    expect(s.state.closed).toBe(true);
  });
});

describe('gateway takeover notice', () => {
  it('is given when this process connects after its start, not for the connection made while starting', async () => {
    const s = scriptedLock(true);
    const gate = createLockGatewayGate(s.lock, { clock: new FakeClock(), logger: silentLogger(), retryMs: 1000 });
    let takeovers = 0;
    gate.onTakenOver(() => takeovers++);
    await gate.join({ acquired: async () => undefined, lost: async () => undefined });
    expect(takeovers).toBe(0);
    s.lose();
    s.take();
    await waitFor(() => takeovers === 1);
  });
});
