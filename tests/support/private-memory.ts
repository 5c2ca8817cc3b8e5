import type { MemoryRow, MemoryStore } from '../../src/memory/memory-store.js';

/** A `me` memory of one person, which they wrote themselves: the private material a shared-thread test starts from. */
export function rememberPrivately(
  memory: Pick<MemoryStore, 'remember'>,
  person: string,
  text: string,
): Promise<MemoryRow> {
  return memory.remember({ scope: 'me', subject: person, text, createdBy: person });
}
