import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The project whose files start Errand as real processes (vitest.config.ts). */
export const PROCESSES_PROJECT = 'processes';

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
    const processes = sorted.filter((f) => f.project.name === PROCESSES_PROJECT);
    const inProcess = sorted.filter((f) => f.project.name !== PROCESSES_PROJECT);
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
