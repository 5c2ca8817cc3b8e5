import type { RunStepStatus } from '../../src/chat/run-step.js';
import type { ShownStep } from './chat-adapter-harness.js';

/** The icon each state of a step is shown with in a compact list (src/chat/step-lines.ts). */
const STATES: Readonly<Record<string, RunStepStatus>> = {
  '⚙️': 'running',
  '✅': 'done',
  '❌': 'failed',
  '⏸️': 'waiting',
};

/**
 * The steps a compact step list shows (Discord's working note, the memory platform's status line, the console's
 * step lines), read back as people read them: each line's state and title, in the order first shown, each in the state of its latest line.
 */
export function stepsIn(text: string): ShownStep[] {
  const steps = new Map<string, RunStepStatus>();
  for (const line of text.split('\n')) {
    const match = /^\s*(\S+) (.+?)(?: — .*)?$/u.exec(line);
    const status = match ? STATES[match[1]!] : undefined;
    if (match && status) {
      steps.set(match[2]!, status);
    }
  }
  return [...steps].map(([title, status]) => ({ title, status }));
}
