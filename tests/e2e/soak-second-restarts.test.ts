import { soakRestarts } from './kits/soak-kit.js';

// Half of the soak (tests/e2e/kits/soak-kit.ts), with seeds of its own, beside soak-restarts.test.ts.
soakRestarts({ conversations: 10, kills: 2, seedOffset: 7919 });
