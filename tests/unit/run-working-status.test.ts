import { describe, expect, it } from 'vitest';
import { activityOfEndedTool, activityOfTool } from '../../src/runs/run-activity.js';
import type { AnswerStream, RunStep, StreamEnd } from '../../src/chat/chat-adapter.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import type { TaskRow } from '../../src/db/schema.js';
import { createLogger, silentLogger } from '../../src/logger.js';
import { runWorkingStatus } from '../../src/runtime/runs/run-working-status.js';
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
    expect(
      adapter.workingLog.map(
        (w) => w.status && { source: w.status.sourceMessageId, activity: w.status.activity, tool: w.status.toolName },
      ),
    ).toEqual([
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
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual([
      'showing the working status failed',
      'clearing the working status failed',
    ]);
  });

  it('passes every step change on with the whole list, and opens one steps stream that the next answer takes over', async () => {
    const adapter = new MemoryAdapter();
    const status = runWorkingStatus(adapter, ref, 'r1', task, silentLogger());
    const shown: RunStep[][] = [];
    const ended: StreamEnd[] = [];
    let opened = 0;
    let clock = 0;
    const stream: AnswerStream = {
      append: () => {},
      finish: async () => [],
      stop: async (how) => void ended.push(how ?? 'stopped'),
      showSteps: (steps) => void shown.push([...steps]),
    };
    status.streamSteps(
      () => (opened++, stream),
      () => false,
      () => clock,
    );
    status.activity(activityOfTool('read_thread', 'c1'));
    status.activity(activityOfEndedTool('read_thread', 'c1', { ok: true }));
    status.activity(activityOfTool('x__search', 'c2'));
    status.activity(activityOfEndedTool('x__search', 'c2', { ok: false, error: 'down' }));
    expect(opened).toBe(1);
    expect(shown.at(-1)).toEqual([
      { id: 'c1', title: 'Reading the thread', status: 'done' },
      { id: 'c2', title: 'Running x__search', status: 'failed', output: 'down' },
    ]);
    expect(adapter.workingLog.at(-1)!.status!.steps).toEqual(shown.at(-1));
    expect(status.takeStream()).toBe(stream);
    expect(status.takeStream()).toBeNull();
    // The next step opens a new stream, closed at the end as stopped while its step still runs.
    status.activity(activityOfTool('x__search', 'c3'));
    expect(opened).toBe(2);
    await status.closeSteps();
    expect(ended).toEqual(['stopped']);
  });

  it('does not hand a steps stream older than Slack keeps streams to the answer, and goes on in a new one', async () => {
    const adapter = new MemoryAdapter();
    const status = runWorkingStatus(adapter, ref, 'r1', task, silentLogger());
    let clock = 0;
    const streams: { ended: StreamEnd[]; shown: RunStep[][] }[] = [];
    status.streamSteps(
      () => {
        const record = { ended: [] as StreamEnd[], shown: [] as RunStep[][] };
        streams.push(record);
        return {
          append: () => {},
          finish: async () => [],
          stop: async (how) => void record.ended.push(how ?? 'stopped'),
          showSteps: (steps) => void record.shown.push([...steps]),
        };
      },
      () => false,
      () => clock,
    );
    status.activity(activityOfTool('x__long', 'c1'));
    clock += 5 * 60_000;
    status.activity(activityOfEndedTool('x__long', 'c1', { ok: true }));
    expect(streams.map((s) => s.ended)).toEqual([['done'], []]);
    expect(streams[1]!.shown.at(-1)).toEqual([{ id: 'c1', title: 'Running x__long', status: 'done' }]);
    clock += 5 * 60_000;
    expect(status.takeStream()).toBeNull();
    await status.closeSteps();
    expect(streams.map((s) => s.ended)).toEqual([['done'], ['done']]);
  });

  it('leaves a stream that cannot show steps unused and does not open another', () => {
    const adapter = new MemoryAdapter();
    const status = runWorkingStatus(adapter, ref, 'r1', task, silentLogger());
    let opened = 0;
    status.streamSteps(
      () => (opened++, { append: () => {}, finish: async () => [], stop: async () => {} }),
      () => false,
      () => 0,
    );
    status.activity(activityOfTool('x__search', 'c1'));
    status.activity(activityOfTool('x__other', 'c2'));
    expect(opened).toBe(1);
    expect(status.takeStream()).toBeNull();
  });
});
