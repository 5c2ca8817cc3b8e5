import { useRestartContext, type RestartContext } from './restart-context.js';

/**
 * What the stream restart files (stream-discord-restarts, stream-slack-restarts) share. A process killed
 * outright while an answer streams leaves its half-written preview on the platform; after the restart that
 * preview is taken back before the run answers again, so the thread shows the answer once. The model
 * streams slowly the first time (the kill lands mid-stream) and answers the resumed run at full speed with
 * the same text. Kept out of one file so the Discord and Slack cases run side by side.
 */
export const ANSWER = Array.from(
  { length: 12 },
  (_, i) => `Step ${i + 1}: a streamed answer that is still being written when the process dies.`,
).join('\n\n');
export const stepsIn = (texts: readonly string[]): number[] =>
  texts.flatMap((t) => [...t.matchAll(/Step (\d+):/g)].map((m) => Number(m[1])));
export const everyStep = Array.from({ length: 12 }, (_, i) => i + 1);

/** Registers the per-test set-up and clean-up: a model that streams ANSWER slowly, so a kill lands mid-stream. */
export function useStreamRestarts(): RestartContext {
  return useRestartContext('errand-stream-restart-', (model) => {
    model.streamPace({ chunkChars: 4, chunkDelayMs: 60 });
    model.respondWith(() => ({ text: ANSWER }));
  });
}
