import { soakRestarts } from './kits/soak-kit.js';

// Half of the soak (tests/e2e/kits/soak-kit.ts); soak-second-restarts.test.ts runs the other half beside it.
soakRestarts({ conversations: 10, kills: 2, seedOffset: 0 });
