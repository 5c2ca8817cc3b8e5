import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Test files that start Errand as real processes (several at once, with their own PostgreSQL connections and
 * leases). New ones are named to match, so that the sequencer below spreads them.
 */
export const PROCESS_TESTS = [
  'tests/e2e/scaleout-*.test.ts',
  'tests/e2e/*-restarts.test.ts',
  'tests/e2e/process-*.test.ts',
  'tests/e2e/console-piped-input.test.ts',
];

/** One of PROCESS_TESTS's patterns as a regular expression (`*`: any characters but `/`). */
function patternOf(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]*')}$`,
  );
}

const processPatterns = PROCESS_TESTS.map(patternOf);

/** Whether the file (relative to the project root, `/`-separated) starts Errand processes. */
export function isProcessTest(path: string): boolean {
  return processPatterns.some((p) => p.test(path));
}

/**
 * Orders the run so that the files that start Errand processes overlap with the in-process files
 * instead of running after them: they are the longest files and spend most of their time waiting
 * (start-up, leases, sockets), not computing. They are spread over the first half of the queue, one
 * between every few in-process files, so that none of them starts late and becomes the run's tail: the
 * last files are short in-process ones, which even out the workers' ends. A fresh clone has no timings of
 * earlier runs, so the order within each kind may be rough (vitest's own: failed last time first, then
 * the longest, else the largest); starting every process file in the first half is what keeps the tail short.
 */
export default class ProcessFilesSpread extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const isProcess = (f: TestSpecification) =>
      isProcessTest(relative(this.ctx.config.root, f.moduleId).split('\\').join('/'));
    const processes = sorted.filter(isProcess);
    const inProcess = sorted.filter((f) => !isProcess(f));
    const between = processes.length === 0 ? 0 : Math.floor(inProcess.length / (2 * processes.length));
    const order: TestSpecification[] = [];
    while (processes.length > 0 || inProcess.length > 0) {
      const next = processes.shift();
      if (next) order.push(next);
      order.push(...inProcess.splice(0, processes.length > 0 ? Math.max(1, between) : inProcess.length));
    }
    return order;
  }
}
