import { soakRestarts } from './kits/soak-kit.js';

// The other half of the soak (tests/e2e/kits/soak-kit.ts), with seeds of its own, beside soak-restarts.test.ts.
soakRestarts({ conversations: 15, kills: 3, seedOffset: 7919 });
