import { z } from 'zod';

/** What a forgotten memory's text becomes in the tool results that showed it. */
export const FORGOTTEN_TEXT = '(forgotten)';

const shownMemories = z.looseObject({ memories: z.array(z.looseObject({ memory_id: z.number(), text: z.string() })) });

/**
 * A `recall` result (the JSON a tool row holds) with memory `memoryId`'s text replaced by FORGOTTEN_TEXT, or null
 * when the row does not show that memory (or is no such result): what `forget` leaves of every row that showed it, so
 * a forgotten memory's text reaches no later request.
 */
export function withoutMemory(content: string | null, memoryId: number): string | null {
  if (content === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return null;
  }
  const result = shownMemories.safeParse(parsed);
  if (!result.success || !result.data.memories.some((m) => m.memory_id === memoryId && m.text !== FORGOTTEN_TEXT))
    return null;
  const memories = result.data.memories.map((m) => (m.memory_id === memoryId ? { ...m, text: FORGOTTEN_TEXT } : m));
  return JSON.stringify({ ...result.data, memories });
}
