import type { RecordedRequest } from '../../fakes/fake-openai.js';
import { useRestartContext, type RestartContext } from './restart-context.js';

/**
 * What the outbox restart files (outbox-discord-restarts, outbox-slack-restarts) share: a fake model and a
 * data folder per test, the Errand process the test started (killed after it), and the scripted answers.
 * Kept out of one file so the Discord and Slack cases run side by side. Registers the per-test set-up and clean-up.
 */
export function useOutboxRestarts(): RestartContext {
  return useRestartContext('errand-outbox-');
}

/** A long answer of numbered paragraphs (`§n`), many platform messages long. */
export function longAnswer(paragraphs: number): string {
  return Array.from(
    { length: paragraphs },
    (_, i) => `§${i + 1}§ ${'All work and no play makes a long report. '.repeat(7).trim()}`,
  ).join('\n\n');
}

/** 1, 2, … n: every paragraph of `longAnswer(n)` once, in order. */
export function everyParagraph(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i + 1);
}

/**
 * A model that writes the long answer, and once its transcript holds it (the answer was recorded before the
 * stop) says it picked up again. Streamed, the stop may land before the answer is recorded: its preview is
 * removed and the resumed run writes the answer anew; either way each piece must be in the thread once.
 */
export function writesOnce(text: string) {
  return (request: RecordedRequest) => ({
    text: request.messages.some((m) => m.role === 'assistant' && String(m.content ?? '').includes('§1§'))
      ? 'Picked up again.'
      : text,
  });
}

/** The paragraph numbers found in posted texts, in the order posted. */
export function paragraphsIn(texts: readonly string[]): number[] {
  return texts.flatMap((t) => [...t.matchAll(/§(\d+)§/g)].map((m) => Number(m[1])));
}

/** A model that sends one progress update, then answers once the update's result says it was posted. */
export function updateThenAnswer(request: RecordedRequest) {
  const posted = request.messages.some((m) => m.role === 'tool' && String(m.content).includes('"posted":true'));
  return posted
    ? { text: 'All done.' }
    : { toolCalls: [{ name: 'send_update', arguments: { text: 'Halfway there.' } }] };
}
