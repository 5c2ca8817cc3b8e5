import { soakRestarts } from './kits/soak-kit.js';

// The single-process soak (tests/e2e/kits/soak-kit.ts), a fresh seed each run; scaleout-chaos.test.ts is its three-process twin.
soakRestarts({ conversations: 10, kills: 2, seedOffset: 0 });
