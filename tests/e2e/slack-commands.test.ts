import { afterEach, describe, expect, it } from 'vitest';
import type { CommandReply, InboundCommand } from '../../src/chat/inbound.js';
import { RecordingSink } from '../contract/chat-adapter-contract.js';
import { waitFor } from '../fakes/wait-for.js';
import { startSlackAdapter, type SlackHarness } from './slack-harness.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';

/** A sink whose command replies take `delayMs` (a slow database, a long listing). */
class SlowCommandSink extends RecordingSink {
  constructor(private readonly delayMs: number) {
    super();
  }

  override async onCommand(command: InboundCommand): Promise<CommandReply> {
    await new Promise((r) => setTimeout(r, this.delayMs));
    return super.onCommand(command);
  }
}

describe('Slack slash commands (real Bolt, HTTP receiver)', () => {
  let h: SlackHarness | null = null;
  afterEach(async () => {
    await h?.close();
    h = null;
  });

  it('hands /tasks, /stop, /schedules and /help to the core channel-wide and answers ephemerally in the ack', async () => {
    const sink = new RecordingSink();
    sink.commandReply = { text: '**Open tasks** in `#general`' };
    h = await startSlackAdapter(sink);
    const results = [];
    for (const [command, text] of [
      ['/tasks', ''],
      ['/stop', ' 12 '],
      ['/schedules', 'pause 3'],
      ['/help', ''],
      ['/errand-tasks', 'x'],
    ] as const) {
      results.push(await h.fake.slashCommand({ command, text, user: ALICE, channel: CHANNEL }));
    }
    for (const r of results) {
      expect(r.status).toBe(200);
      expect(r.ms).toBeLessThan(3000);
      expect(JSON.parse(r.body)).toEqual({ response_type: 'ephemeral', text: '*Open tasks* in `#general`' });
    }
    const channel = { platform: 'slack', workspace: h.fake.teamId, channel: CHANNEL };
    expect(sink.commands).toEqual([
      { name: 'tasks', args: '', channel, conversation: null, userId: ALICE },
      { name: 'stop', args: '12', channel, conversation: null, userId: ALICE },
      { name: 'schedules', args: 'pause 3', channel, conversation: null, userId: ALICE },
      { name: 'help', args: '', channel, conversation: null, userId: ALICE },
      { name: 'tasks', args: 'x', channel, conversation: null, userId: ALICE },
    ]);
  });

  it('hands /admin (and /errand-admin) to the core and answers with its link ephemerally', async () => {
    const sink = new RecordingSink();
    sink.commandReply = {
      text: "Your sign-in link to Errand's web console: https://errand.example.com/admin/sign-in/abc",
    };
    h = await startSlackAdapter(sink);
    for (const command of ['/admin', '/errand-admin']) {
      const r = await h.fake.slashCommand({ command, text: '', user: ALICE, channel: CHANNEL });
      expect(JSON.parse(r.body)).toMatchObject({
        response_type: 'ephemeral',
        text: expect.stringContaining('https://errand.example.com/admin/sign-in/abc'),
      });
    }
    expect(sink.commands.map((c) => c.name)).toEqual(['admin', 'admin']);
  });

  it('acknowledges a slow command within the budget and answers through response_url', async () => {
    const sink = new SlowCommandSink(300);
    h = await startSlackAdapter(sink, { tuning: { commandAckBudgetMs: 50 } });
    const r = await h.fake.slashCommand({ command: '/tasks', user: ALICE, channel: CHANNEL });
    expect(r.status).toBe(200);
    expect(r.ms).toBeLessThan(3000);
    // An empty ack proves it did not wait for the reply, which took longer than the budget.
    expect(r.body).toBe('');
    const response = await waitFor(() => h!.fake.responses.find((x) => x.id === r.responseId));
    expect(response!.body).toMatchObject({ response_type: 'ephemeral', text: 'command reply' });
  });
});
