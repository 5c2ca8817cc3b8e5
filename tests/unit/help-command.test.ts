import { describe, expect, it } from 'vitest';
import { handleHelpCommand } from '../../src/commands/help-command.js';

describe('/help', () => {
  it('on Slack and Discord explains mentions, threads and the commands', () => {
    const { text } = handleHelpCommand({ platform: 'slack', schedulesHelp: '• `/schedules` — schedules' });
    expect(text).toContain('mention me');
    expect(text).toContain('in the thread');
    expect(text).toContain('• `/schedules` — schedules');
    for (const cmd of ['/tasks', '/stop', '/usage', '/skills', '/help']) expect(text).toContain(cmd);
  });

  it('in the console speaks of the session: typing, numbered answers, approvals, stop and quitting', () => {
    const { text } = handleHelpCommand({ platform: 'console', schedulesHelp: 'channel-worded schedules help' });
    expect(text).not.toMatch(/thread|mention|channel/i);
    expect(text).toContain('This session is one conversation');
    expect(text).toContain('type the number of an option or your own answer');
    expect(text).toContain('🔐');
    expect(text).toContain('`allow`');
    expect(text).toContain('`always`');
    expect(text).toContain('`deny`');
    expect(text).toContain('Type `stop`');
    expect(text).toContain('Ctrl-D');
    for (const cmd of ['/tasks', '/stop', '/schedules', '/usage', '/skills', '/help']) expect(text).toContain(cmd);
  });

  it('in the console leaves schedules out when scheduling is not wired', () => {
    expect(handleHelpCommand({ platform: 'console' }).text).not.toContain('/schedules');
  });
});
