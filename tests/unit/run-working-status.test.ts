import { describe, expect, it } from 'vitest';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import type { TaskRow } from '../../src/db/schema.js';
import { createLogger, silentLogger } from '../../src/logger.js';
import { runWorkingStatus } from '../../src/runtime/run-working-status.js';
import { MemoryAdapter } from '../fakes/memory-adapter.js';

const ref: ConversationRef = { platform: 'memory', workspace: 'w', channel: 'c', thread: 't' };
const task = { sourceMessageId: 'm1' } as TaskRow;

describe("a run's working status", () => {
  it('shows the run on its source message, passes on only changed steps, and clears at the end', async () => {
    const adapter = new MemoryAdapter();
    const status = runWorkingStatus(adapter, ref, 'r1', task, silentLogger());
    status.show();
    status.activity({ activity: 'thinking' });
    status.activity({ activity: 'thinking' });
    status.activity({ activity: 'tool', toolName: 'search' });
    status.clear();
    await Promise.resolve();
    expect(adapter.workingLog.map((w) => w.status && { source: w.status.sourceMessageId, activity: w.status.activity, tool: w.status.toolName })).toEqual([
      { source: 'm1', activity: undefined, tool: undefined },
      { source: 'm1', activity: 'thinking', tool: undefined },
      { source: 'm1', activity: 'tool', tool: 'search' },
      null,
    ]);
    expect(adapter.workingLog[0]!.status!.stopActionId).toContain('r1');
  });

  it('logs a platform that refuses the status instead of failing the run', async () => {
    const adapter = new MemoryAdapter();
    adapter.setWorking = () => Promise.reject(new Error('rate limited'));
    const lines: string[] = [];
    const logger = createLogger('warn', { write: (line: string) => void lines.push(line) });
    const status = runWorkingStatus(adapter, ref, 'r1', null, logger);
    expect(() => {
      status.show();
      status.clear();
    }).not.toThrow();
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(['showing the working status failed', 'clearing the working status failed']);
  });
});
