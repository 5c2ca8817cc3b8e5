import type { MemoryRow, MemoryScope, MemoryStore, MemoryVisibility } from './memory-store.js';
import { isVisible, subjectFor } from './memory-visibility.js';

/** The most memories one person may keep (every scope counted). */
export const MAX_MEMORIES_PER_PERSON = 200;
/** A memory is shorter than this many characters: a fact, not a document. */
export const MAX_MEMORY_CHARS = 2000;

/** Why a memory was not stored, or not forgotten: each with a sentence the model or the person can act on. */
export type MemoryRefusal = 'empty' | 'too_long' | 'no_person' | 'admins_only' | 'no_workspace' | 'full' | 'unknown';

/** The sentence for each refusal, written for whoever asked (the model reads it as a tool error). */
export function memoryRefusalText(reason: MemoryRefusal, id?: number): string {
  switch (reason) {
    case 'empty':
      return 'The memory is empty: give the fact to remember as text.';
    case 'too_long':
      return `A memory must be shorter than ${MAX_MEMORY_CHARS} characters: keep only the fact itself.`;
    case 'no_person':
      return 'This run acts for nobody in particular, so there is no "me" to remember for: use scope "channel".';
    case 'no_workspace':
      return 'This is a direct message outside any server or workspace, so there is no workspace to remember for: use scope "me" or "channel", or remember it from a channel of the workspace.';
    case 'admins_only':
      return 'Only Errand admins may remember or forget for the whole workspace: use scope "me" or "channel".';
    case 'full':
      return `This person already keeps ${MAX_MEMORIES_PER_PERSON} memories, the most allowed: forget one first (recall lists them with ids).`;
    case 'unknown':
      return `There is no memory #${id ?? '?'} here: use an id from recall or from the memories in your instructions.`;
  }
}

/** Who is asking: what they may see, and whether they are an admin (workspace memories). */
export interface MemoryAsker {
  readonly visibility: MemoryVisibility;
  readonly isAdmin: boolean;
}

/**
 * Stores a memory for the asker, in the subject of `scope` that the asker's run or place decides (never one
 * named by the caller): refused when empty or too long, `me` without a person, `workspace` from a non-admin,
 * or past the per-person limit.
 */
export async function rememberFor(
  store: Pick<MemoryStore, 'remember' | 'countBy'>,
  asker: MemoryAsker,
  scope: MemoryScope,
  text: string,
): Promise<{ ok: true; memory: MemoryRow } | { ok: false; reason: MemoryRefusal }> {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, reason: 'empty' };
  if (trimmed.length >= MAX_MEMORY_CHARS) return { ok: false, reason: 'too_long' };
  const subject = subjectFor(scope, asker.visibility);
  const person = asker.visibility.person;
  if (person === null) return { ok: false, reason: 'no_person' };
  if (scope === 'workspace' && !asker.isAdmin) return { ok: false, reason: 'admins_only' };
  if (subject === null) return { ok: false, reason: 'no_workspace' };
  if ((await store.countBy(person)) >= MAX_MEMORIES_PER_PERSON) return { ok: false, reason: 'full' };
  return { ok: true, memory: await store.remember({ scope, subject, text: trimmed, createdBy: person }) };
}

/**
 * Forgets a memory the asker may see (`workspace` ones: admins only). A memory of someone else, another
 * channel or another workspace is `unknown`, exactly like an id that never existed: nothing leaks.
 */
export async function forgetFor(
  store: Pick<MemoryStore, 'memory' | 'forget'>,
  asker: MemoryAsker,
  id: number,
): Promise<{ ok: true; memory: MemoryRow } | { ok: false; reason: MemoryRefusal }> {
  const memory = await store.memory(id);
  if (!memory || !isVisible(memory, asker.visibility)) return { ok: false, reason: 'unknown' };
  if (memory.scope === 'workspace' && !asker.isAdmin) return { ok: false, reason: 'admins_only' };
  if (!(await store.forget(id))) return { ok: false, reason: 'unknown' };
  return { ok: true, memory };
}
