import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROKEN_ADAPTERS, BROKEN_PATIENCE, NOT_BROKEN } from './broken-adapters.js';
import { capabilityChecks } from './capability-contract.js';
import {
  FULL_PATIENCE,
  type ChatAdapterHarness,
  type ContractCheck,
  type ContractOptions,
  type Patience,
} from './chat-adapter-harness.js';
import { coreChecks, stopCheck } from './core-checks.js';
import { surfaceChecks } from './surface-checks.js';

export type { CapabilityName, ChatAdapterHarness, ContractOptions } from './chat-adapter-harness.js';
export { RecordingSink, RecordingSurfaces } from './recording-sinks.js';

/**
 * What every ChatAdapter must do, whatever the platform, driven through the platform's fake: the port's members
 * (core-checks), every capability it declares (capability-contract) and the surfaces it serves (surface-checks).
 * Then each check runs again against adapters broken where it looks (broken-adapters) and must fail there, so
 * none of them passes whatever the adapter does. `stop()` is checked last: it ends the adapter. Each adapter's
 * test calls this with its own harness.
 */
export function chatAdapterContract(
  name: string,
  makeHarness: () => Promise<ChatAdapterHarness>,
  options: ContractOptions,
): void {
  describe(`${name} adapter contract`, () => {
    let h: ChatAdapterHarness;
    beforeAll(async () => {
      h = await makeHarness();
    });
    afterAll(async () => h.teardown());

    const checks = [...coreChecks(options), ...capabilityChecks(options), ...surfaceChecks(options), stopCheck];
    const run = (check: ContractCheck, harness: ChatAdapterHarness, patience: Patience) => {
      harness.beginCheck?.();
      return check.run(harness, patience);
    };
    for (const check of checks.filter((c) => c !== stopCheck)) it(check.title, () => run(check, h, FULL_PATIENCE));

    const broken = BROKEN_ADAPTERS.filter(
      (b) => checks.some((c) => c.id === b.check) && (b.applies?.(options) ?? true),
    );
    describe('fails against an adapter broken where it looks', () => {
      it('has a broken adapter for every check', () => {
        const uncovered = checks
          .filter((c) => !broken.some((b) => b.check === c.id) && !(c.id in NOT_BROKEN))
          .map((c) => c.id);
        expect(uncovered).toEqual([]);
      });
      for (const b of broken) {
        const check = checks.find((c) => c.id === b.check)!;
        it(`${check.id}: when ${b.broken}`, async () => {
          const { harness, restore } = b.breakIn(h);
          try {
            await expect(run(check, harness, BROKEN_PATIENCE)).rejects.toThrow(b.fails);
          } finally {
            await restore();
          }
        });
      }
    });

    it(stopCheck.title, () => run(stopCheck, h, FULL_PATIENCE));
  });
}
