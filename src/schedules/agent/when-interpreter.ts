import { z } from 'zod';
import type { LlmClient } from '../../agent/llm-client.js';
import type { ScheduleKind } from '../schedule-timing.js';
import { isoInZone } from '../zoned-time.js';

/** Turns "every weekday at nine" into a spec; null when the model could not (or gave no usable answer). */
export type WhenInterpreter = (
  words: string,
  timezone: string,
  now: number,
) => Promise<{ kind: ScheduleKind; spec: string } | null>;

const answerSchema = z.object({
  kind: z.enum(['once', 'cron', 'interval']),
  spec: z.union([z.string(), z.number()]).transform(String),
});

const INSTRUCTIONS =
  'Turn the schedule the user describes into JSON {"kind": "once"|"cron"|"interval", "spec": string}. ' +
  'once: spec is an ISO 8601 local date-time like 2026-03-09T09:00 (no offset). cron: a 5-field cron (minute hour day-of-month month day-of-week). ' +
  'interval: spec is a whole number of minutes. Answer with the JSON object only. If it is not a schedule, answer {"kind":"none"}.';

/** The first JSON object in a reply, which small models sometimes wrap in prose or a code fence. */
function jsonIn(text: string): unknown {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  try {
    return JSON.parse(text.slice(start, end + 1)) as unknown;
  } catch {
    return null;
  }
}

/**
 * One small model call, no tools: the model is good at "the first Monday of each month at 10"
 * and the result is shown back for confirmation, never saved unseen.
 */
export function createWhenInterpreter(llm: LlmClient, timeoutMs = 30_000): WhenInterpreter {
  return async (words, timezone, now) => {
    const signal = AbortSignal.timeout(timeoutMs);
    const reply = await llm.complete({
      messages: [
        { role: 'system', content: `${INSTRUCTIONS} Now it is ${isoInZone(now, timezone)} in ${timezone}.` },
        { role: 'user', content: words },
      ],
      tools: [],
      signal,
    });
    const parsed = answerSchema.safeParse(jsonIn(reply.text ?? ''));
    return parsed.success ? parsed.data : null;
  };
}
