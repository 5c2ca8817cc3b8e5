import type { RunRow } from '../../src/db/schema.js';
import type { RunStore } from '../../src/run-records/run-store.js';
import type { RunFencedError } from '../../src/run-records/run-fence.js';
import { fenceRunWrites } from '../../src/runs/runtime/fenced-run-writes.js';
import { RunSettler, type SettlerDeps } from '../../src/runs/runtime/run-settler.js';
import type { TaskService } from '../../src/tasks/task-service.js';
import type { TranscriptStore } from '../../src/conversations/transcript-store.js';

/** The stores a run's settlement writes through. */
interface SettlingStore {
  readonly tasks: TaskService;
  readonly runs: RunStore;
  readonly transcript: TranscriptStore;
}

/**
 * A run's settler and its fenced writes, built as the run coordinator builds them (the tests' limits: three
 * attempts, ten minutes, five seconds between tries), so the settlement tests of both stores drive the same path.
 * `refusals` collects what the fence refused; `metrics` and `requeued` default to nowhere.
 */
export async function coordinatorSettler(
  store: SettlingStore,
  run: RunRow,
  deps: Pick<SettlerDeps, 'posts' | 'clock' | 'metrics'> & { requeued?: SettlerDeps['requeued'] },
): Promise<{ settler: RunSettler; writes: ReturnType<typeof fenceRunWrites>; refusals: RunFencedError[] }> {
  const { posts, clock, metrics, requeued = () => undefined } = deps;
  const settler = new RunSettler({
    tasks: store.tasks,
    runs: store.runs,
    posts,
    clock,
    limits: { maxAttempts: 3, maxRunMs: 600_000, retryDelayMs: () => 5_000 },
    ...(metrics ? { metrics } : {}),
    requeued,
  });
  const refusals: RunFencedError[] = [];
  const writes = fenceRunWrites(
    await store.runs.fence(run.id),
    { posts, transcript: store.transcript, runs: store.runs },
    (e) => refusals.push(e),
  );
  return { settler, writes, refusals };
}
