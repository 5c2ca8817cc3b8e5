import type { ConnectionStore } from '../sign-in/connection-store.js';
import type { MemoryStore } from '../memory/memory-store.js';
import type { ScheduleStore } from '../schedules/schedule-store.js';
import type { WorkspaceStore } from '../sandbox/workspace-store.js';
import type { Store } from '../store/store.js';

/**
 * The whole Store: the core's stores (src/store/store.ts) and each feature's, plugged in here from above, so
 * the layers below the features hold only what they use and no generic layer imports a feature.
 */
export interface ErrandStore extends Store {
  readonly schedules: ScheduleStore;
  /** Conversations' sandbox workspaces: their files, reached by every process (DESIGN.md "Running code in a sandbox"). */
  readonly workspaces: WorkspaceStore;
  /** Conversation summaries and long-term memories (DESIGN.md "Memory"). */
  readonly memory: MemoryStore;
  /** People's sign-ins to OAuth MCP servers (tokens sealed above the store). */
  readonly connections: ConnectionStore;
  /** Runs `work` in one transaction (see Store's comment), with every feature's store on `tx`. */
  atomically<T>(work: (tx: ErrandStore) => Promise<T>): Promise<T>;
}
