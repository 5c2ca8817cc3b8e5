import { describe, expect, it } from 'vitest';
import { statusText, titleOf } from '../../adapters/slack/assistant-threads.js';
import { activityOfTool } from '../../src/runs/run-activity.js';

const base = { runId: 'r1', stopActionId: 'errand:stop:r1' };

describe('Slack assistant status line and title', () => {
  it('says what each step does', () => {
    expect(statusText(base)).toBe('is thinking…');
    expect(statusText({ ...base, activity: 'thinking' })).toBe('is thinking…');
    expect(statusText({ ...base, ...activityOfTool('read_thread') })).toBe('is reading this thread…');
    expect(statusText({ ...base, ...activityOfTool('read_channel') })).toBe('is reading this channel…');
    expect(statusText({ ...base, ...activityOfTool('github__search_issues') })).toBe(
      'is running github__search_issues…',
    );
    expect(statusText({ ...base, activity: 'waiting' })).toBe('is waiting for your answer');
  });

  it("follows the running tool's name with what it last reported (MCP progress)", () => {
    const steps = [
      { id: 'c1', title: 'Reading the thread', status: 'done' as const },
      { id: 'c2', title: 'Running github__search_issues', status: 'running' as const, progress: '3/10 pages' },
    ];
    expect(statusText({ ...base, ...activityOfTool('github__search_issues'), steps })).toBe(
      'is running github__search_issues… (3/10 pages)',
    );
    expect(statusText({ ...base, ...activityOfTool('github__search_issues'), steps: steps.slice(0, 1) })).toBe(
      'is running github__search_issues…',
    );
  });

  it('titles a thread with the first non-empty line of the request, cut to Slack size', () => {
    expect(titleOf('\n  Plan the release  \nwith details')).toBe('Plan the release');
    expect(titleOf('   \n ')).toBeNull();
    const long = titleOf('x'.repeat(300))!;
    expect(long).toHaveLength(100);
    expect(long.endsWith('…')).toBe(true);
  });
});
