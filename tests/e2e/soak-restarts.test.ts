import { soakRestarts } from './kits/soak-kit.js';

// Half of the soak (tests/e2e/kits/soak-kit.ts); soak-more-restarts.test.ts runs the other half beside it.
soakRestarts({ conversations: 15, kills: 3, seedOffset: 0 });
