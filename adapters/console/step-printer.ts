import type { RunStep } from '../../src/chat/chat-adapter.js';
import { stepLine } from '../../src/chat/step-lines.js';

/** Prints a line for each change of a run's steps, per conversation; forgets them when the run ends. */
export interface StepPrinter {
  /** The run's steps as last reported: a line for each step new or changed since the last report. */
  show(key: string, steps: readonly RunStep[]): void;
  /** The run in this conversation ended. */
  end(key: string): void;
}

/** The console's step lines: `print` gets each line once, in the order the steps changed. */
export function createStepPrinter(print: (line: string) => void): StepPrinter {
  const printed = new Map<string, Map<string, string>>();
  return {
    show(key, steps) {
      const seen = printed.get(key) ?? new Map<string, string>();
      printed.set(key, seen);
      for (const step of steps) {
        const line = stepLine(step);
        if (seen.get(step.id) === line) continue;
        seen.set(step.id, line);
        print(line);
      }
    },
    end: (key) => void printed.delete(key),
  };
}
