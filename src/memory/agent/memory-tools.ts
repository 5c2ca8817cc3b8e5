import { z } from 'zod';
import type { Person } from '../../access/access-policy.js';
import type { MemoryRow, MemoryStore } from '../memory-store.js';
import { forgetFor, MAX_MEMORY_CHARS, memoryRefusalText, rememberFor, type MemoryAsker } from '../memory-rules.js';
import { memoryVisibility } from '../memory-visibility.js';
import { defineTool, fail, ok, type ToolContext, type ToolDefinition } from '../../agent/tools/tool.js';

/** Most memories one `recall` returns. */
const RECALL_LIMIT = 20;

const scope = z.enum(['me', 'channel', 'workspace']);

/** What the model sees of a memory. */
function shown(m: MemoryRow) {
  return { memory_id: m.id, scope: m.scope, text: m.text, remembered_at: new Date(m.createdAt).toISOString() };
}

/**
 * The long-term memory tools (DESIGN.md "Memory"): `remember`, `recall`, `forget`. Whose memories they touch
 * comes from the run — its principal and its channel — never from the arguments: `scope` only picks which of
 * the run's own subjects.
 */
export function createMemoryTools(store: MemoryStore, isAdmin: (person: Person) => boolean): ToolDefinition[] {
  const askerOf = (ctx: ToolContext): MemoryAsker => {
    const principal = ctx.principal ?? null;
    return {
      visibility: memoryVisibility(principal, ctx.conversation),
      isAdmin: principal !== null && isAdmin(principal),
    };
  };
  return [
    defineTool({
      name: 'remember',
      description:
        'Remember a fact for later runs (long-term memory): scope "me" (default) is about the person you work for and only shown in their runs; "channel" is shown in every run in this channel; "workspace" (admins only) everywhere in this workspace (a Discord DM, in no server, has none). Store short facts, preferences and instructions people ask you to keep, not whole conversations.',
      parameters: z.object({
        text: z
          .string()
          .trim()
          .min(1, 'the memory is empty: give the fact to remember')
          .max(
            MAX_MEMORY_CHARS - 1,
            `a memory must be shorter than ${MAX_MEMORY_CHARS} characters: keep only the fact`,
          ),
        scope: scope.optional(),
      }),
      async execute({ text, scope: chosen }, ctx) {
        const stored = await rememberFor(store, askerOf(ctx), chosen ?? 'me', text);
        return stored.ok
          ? ok({ memory_id: stored.memory.id, scope: stored.memory.scope })
          : fail(memoryRefusalText(stored.reason));
      },
    }),
    defineTool({
      name: 'recall',
      description:
        'Search what you remember (long-term memories you may see in this run): best matches for `query` first, or the newest without one. Returns memory ids for forget.',
      parameters: z.object({ query: z.string().trim().max(500).optional(), scope: scope.optional() }),
      async execute({ query, scope: only }, ctx) {
        const { visibility } = askerOf(ctx);
        const found = query
          ? await store.search(visibility, query, RECALL_LIMIT, only)
          : await store.newest(visibility, RECALL_LIMIT, only);
        const outcome = ok({
          memories: found.map(shown),
          ...(found.length === 0
            ? {
                note: query
                  ? 'Nothing matched; call recall without a query to list the newest memories.'
                  : 'Nothing is remembered here yet.',
              }
            : {}),
        });
        // The principal's own memories are theirs alone; a channel's or the workspace's are for everyone there.
        return {
          ...outcome,
          ...(found.some((m) => m.scope === 'me') ? { private: true } : {}),
          ...(found.length > 0 ? { memoryIds: found.map((m) => m.id) } : {}),
        };
      },
    }),
    defineTool({
      name: 'forget',
      description:
        'Forget one long-term memory by its id (from recall, or from the memories in your instructions). It is gone from every later request.',
      parameters: z.object({ memory_id: z.number().int().positive() }),
      async execute({ memory_id }, ctx) {
        const gone = await forgetFor(store, askerOf(ctx), memory_id);
        // Not its text: the memory is gone from every stored result, and this one must not bring it back.
        return gone.ok
          ? ok({ forgotten: memory_id, scope: gone.memory.scope })
          : fail(memoryRefusalText(gone.reason, memory_id));
      },
    }),
  ];
}
