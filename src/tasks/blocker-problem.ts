/**
 * Why `blocked_by` cannot be accepted, or null when it can: every blocker must be a task of the same
 * conversation, and the edge must not close a cycle (a task that waits for itself never runs). Pure,
 * so both stores give the model the same words after reading the conversation's tasks their own way.
 */
export function blockerProblem(
  tasksOfConversation: readonly { id: number; blockedBy: readonly number[] }[],
  selfId: number | null,
  ids: readonly number[],
): string | null {
  const graph = new Map(tasksOfConversation.map((t) => [t.id, t.blockedBy]));
  for (const id of ids) {
    if (!graph.has(id))
      return `blocked_by refers to task #${id}, which is not in this conversation. Call list_tasks to see the ids.`;
    if (id === selfId) return 'A task cannot be blocked by itself.';
  }
  if (selfId === null) return null;
  const seen = new Set<number>();
  const stack = [...ids];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (id === selfId) return `That would create a cycle: task #${selfId} would end up waiting for itself.`;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(graph.get(id) ?? []));
  }
  return null;
}
