import { describe, expect, it } from 'vitest';
import {
  blockedChanges,
  deleteRefusal,
  editRefusal,
  finishRefusal,
  withoutBlocker,
} from '../../src/tasks/queue-rules.js';

describe("the to-do queue's rules", () => {
  it('blocks a pending task while a blocker exists and has not completed, and unblocks it when all have', () => {
    const rows = [
      { id: 1, status: 'completed' as const, blockedBy: [], blocked: false },
      { id: 2, status: 'failed' as const, blockedBy: [], blocked: false },
      { id: 3, status: 'pending' as const, blockedBy: [1], blocked: true },
      { id: 4, status: 'pending' as const, blockedBy: [1, 2], blocked: false },
      { id: 5, status: 'pending' as const, blockedBy: [99], blocked: true },
      { id: 6, status: 'in_progress' as const, blockedBy: [2], blocked: false },
    ];
    // 3: its one blocker completed. 4: a failed blocker keeps it blocked. 5: a deleted blocker no longer holds it.
    // 6: not pending, never touched.
    expect(blockedChanges(rows)).toEqual([
      { id: 3, blocked: false },
      { id: 4, blocked: true },
      { id: 5, blocked: false },
    ]);
  });

  it('refuses edits of finished tasks, deletes of tasks in progress, and names why a finish wrote nothing', () => {
    expect(editRefusal(7, { status: 'cancelled' })).toEqual({
      ok: false,
      error: 'Task #7 is cancelled; only pending or in-progress tasks can be edited.',
    });
    expect(editRefusal(7, { status: 'in_progress' })).toBeNull();
    expect(deleteRefusal(7, { status: 'in_progress' })?.ok).toBe(false);
    expect(deleteRefusal(7, { status: 'failed' })).toBeNull();
    expect(finishRefusal(7, { status: 'completed' })).toEqual({ ok: false, error: 'Task #7 is already completed.' });
    expect(finishRefusal(7, null)).toEqual({
      ok: false,
      error: 'No task #7 in this conversation. Call list_tasks to see the ids.',
    });
  });

  it('takes a deleted task out of the blocker lists that named it', () => {
    expect(
      withoutBlocker(
        [
          { id: 1, blockedBy: [3, 4] },
          { id: 2, blockedBy: [4] },
          { id: 5, blockedBy: [] },
        ],
        3,
      ),
    ).toEqual([{ id: 1, blockedBy: [4] }]);
  });
});
