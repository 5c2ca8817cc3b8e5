import { soakRestarts } from './kits/soak-kit.js';

// A third of the soak (tests/e2e/kits/soak-kit.ts); soak-second- and soak-third-restarts.test.ts run the rest beside it.
soakRestarts({ conversations: 10, kills: 2, seedOffset: 0 });
