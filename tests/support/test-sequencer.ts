import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The project whose files start Errand as real processes (vitest.config.ts). */
export const PROCESSES_PROJECT = 'processes';

/**
 * Orders the run so that the files that start Errand processes overlap with the in-process files
 * instead of running after them: they are the longest files and spend most of their time waiting
 * (start-up, leases, sockets), not computing. They are spread evenly over the queue, the longest first,
 * so that a worker takes one about as often as the last one ends, rarely while another still runs.
 * Within each kind vitest's own order holds (files that failed last time first, then the longest).
 */
export default class ProcessFilesSpread extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const processes = sorted.filter((f) => f.project.name === PROCESSES_PROJECT);
    const inProcess = sorted.filter((f) => f.project.name !== PROCESSES_PROJECT);
    const between = processes.length === 0 ? 0 : Math.ceil(inProcess.length / processes.length);
    const order: TestSpecification[] = [];
    while (processes.length > 0 || inProcess.length > 0) {
      const next = processes.shift();
      if (next) order.push(next);
      order.push(...inProcess.splice(0, Math.max(1, between)));
    }
    return order;
  }
}
