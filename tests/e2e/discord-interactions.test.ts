import { afterEach, describe, expect, it } from 'vitest';
import { answerActionId, stopActionId } from '../../src/chat/action-id.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import type { CommandReply, InboundAction, InboundCommand } from '../../src/chat/inbound.js';
import { RecordingSink } from '../contract/chat-adapter-contract.js';
import { waitFor } from '../fakes/wait-for.js';
import { startDiscordHarness, until, type DiscordHarness } from './discord-harness.js';

let h: DiscordHarness;
afterEach(async () => h?.close());

const EPHEMERAL = 64;

/** A sink whose command and action answers are scripted, optionally slow. */
class ScriptedSink extends RecordingSink {
  delayMs = 0;
  actionReply: CommandReply | null = null;

  override async onCommand(command: InboundCommand): Promise<CommandReply> {
    const reply = await super.onCommand(command);
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    return reply;
  }

  override async onAction(action: InboundAction): Promise<CommandReply | null> {
    await super.onAction(action);
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    return this.actionReply;
  }
}

describe('Discord slash commands', () => {
  it('registers /tasks, /stop, /schedules, /usage, /help with one bulk overwrite in the configured guild', async () => {
    h = await startDiscordHarness();
    const puts = h.fake.callsTo('PUT', /commands$/);
    expect(puts.map((c) => c.path)).toEqual([
      `/applications/${h.fake.applicationId}/guilds/${h.fake.guildId}/commands`,
    ]);
    const commands = puts[0]!.body as {
      name: string;
      options?: { name: string; type: number; options?: { name: string; required?: boolean }[] }[];
    }[];
    expect(commands.map((c) => c.name)).toEqual([
      'tasks',
      'stop',
      'schedules',
      'usage',
      'connections',
      'memory',
      'help',
      'skills',
      'admin',
    ]);
    expect(commands[5]!.options).toMatchObject([{ name: 'forget', type: 4 }]);
    expect(commands[1]!.options).toMatchObject([{ name: 'target', type: 3 }]);
    expect(commands[2]!.options!.map((o) => [o.name, o.type])).toEqual([
      ['list', 1],
      ['pause', 1],
      ['resume', 1],
      ['delete', 1],
      ['add', 1],
    ]);
    expect(commands[2]!.options![1]!.options).toMatchObject([{ name: 'id', required: true }]);
  });

  it('registers globally when no guild is configured', async () => {
    h = await startDiscordHarness({ perGuild: false });
    expect(h.fake.callsTo('PUT', /commands$/).map((c) => c.path)).toEqual([
      `/applications/${h.fake.applicationId}/commands`,
    ]);
    expect(h.fake.registeredCommands.get('global')).toHaveLength(9);
  });

  it('hands each command to the sink with its arguments and answers ephemerally', async () => {
    h = await startDiscordHarness();
    const { fake, sink } = h;
    sink.commandReply = { text: 'Nothing running here.' };
    const channelConversation: ConversationRef = {
      platform: 'discord',
      workspace: fake.guildId,
      channel: fake.general.id,
      thread: null,
    };
    const uses = [
      fake.slashCommand('tasks', fake.general.id),
      fake.slashCommand('stop', fake.general.id, [{ type: 3, name: 'target', value: 'all' }]),
      fake.slashCommand('stop', fake.general.id),
      fake.slashCommand('schedules', fake.general.id, [{ type: 1, name: 'list', options: [] }]),
      fake.slashCommand('schedules', fake.general.id, [
        { type: 1, name: 'pause', options: [{ type: 3, name: 'id', value: '12' }] },
      ]),
      fake.slashCommand('help', fake.general.id),
      fake.slashCommand('admin', fake.general.id),
    ];
    await waitFor(() => uses.every((u) => u.responses.length === 1));
    expect(sink.commands.map((c) => [c.name, c.args])).toEqual([
      ['tasks', ''],
      ['stop', 'all'],
      ['stop', ''],
      ['schedules', ''],
      ['schedules', 'pause 12'],
      ['help', ''],
      ['admin', ''],
    ]);
    for (const c of sink.commands) {
      expect(c.channel).toEqual({ platform: 'discord', workspace: fake.guildId, channel: fake.general.id });
      expect(c.conversation).toEqual(channelConversation);
      expect(c.userId).toBe(fake.alice.id);
    }
    for (const u of uses) {
      expect(u.callbacks).toEqual([
        { type: 4, data: expect.objectContaining({ content: 'Nothing running here.', flags: EPHEMERAL }) },
      ]);
      expect(u.responses[0]).toMatchObject({ ephemeral: true });
    }
  });

  it('inside a thread a command acts on that thread', async () => {
    h = await startDiscordHarness();
    const { fake, sink, adapter } = h;
    const msg = fake.userMessage(fake.general.id, `<@${fake.bot.id}> go`);
    const thread = await adapter.openThread(
      { platform: 'discord', workspace: fake.guildId, channel: fake.general.id },
      msg.id,
      'go',
    );
    const use = fake.slashCommand('tasks', msg.id);
    await waitFor(() => use.responses.length === 1);
    expect(sink.commands[0]).toMatchObject({
      conversation: thread,
      channel: { platform: 'discord', workspace: fake.guildId, channel: fake.general.id },
    });
  });

  it('in a DM a command acts on the DM conversation', async () => {
    h = await startDiscordHarness();
    const { fake, sink } = h;
    const dm = fake.directMessage('hello');
    await waitFor(() => sink.messages.length === 1);
    const use = fake.slashCommand('help', dm.channel_id);
    await waitFor(() => use.responses.length === 1);
    expect(sink.commands[0]).toMatchObject({
      name: 'help',
      channel: { platform: 'discord', workspace: '@me', channel: dm.channel_id },
      conversation: { platform: 'discord', workspace: '@me', channel: dm.channel_id, thread: null },
    });
    expect(use.responses[0]).toMatchObject({ ephemeral: true });
  });

  it('defers when the core is slow, then edits the deferred reply (Discord allows 3 s)', async () => {
    const sink = new ScriptedSink();
    sink.delayMs = 300;
    sink.commandReply = { text: `${'x'.repeat(1999)} and more` };
    h = await startDiscordHarness({ sink });
    const use = h.fake.slashCommand('tasks', h.fake.general.id);
    await waitFor(() => use.responses.length === 2);
    expect(use.callbacks.map((c) => c.type)).toEqual([5]);
    expect(use.callbacks[0]!.data).toMatchObject({ flags: EPHEMERAL });
    expect(use.responses.map((r) => [r.content.length <= 2000, r.ephemeral])).toEqual([
      [true, true],
      [true, true],
    ]);
    expect(use.responses[1]!.content).toBe('and more');
    expect(h.fake.calls.filter((c) => c.status >= 400)).toEqual([]);
  });
});

describe('Discord buttons', () => {
  it("the working notice's Stop button reaches the sink as a stop action, acknowledged silently", async () => {
    h = await startDiscordHarness();
    const { fake, sink, adapter } = h;
    const msg = fake.userMessage(fake.general.id, `<@${fake.bot.id}> long job`);
    const thread = await adapter.openThread(
      { platform: 'discord', workspace: fake.guildId, channel: fake.general.id },
      msg.id,
      'long job',
    );
    await adapter.setWorking(thread, { runId: 'run-7', stopActionId: stopActionId('run-7') });
    const notice = await until(() => fake.botMessagesIn(msg.id).find((m) => m.content.includes('Working')));
    const click = fake.clickButton(notice.id, stopActionId('run-7'));
    await waitFor(() => click.callbacks.length === 1);
    expect(sink.actions).toEqual([{ kind: 'stop', runId: 'run-7', userId: fake.alice.id, conversation: thread }]);
    expect(click.callbacks[0]!.type).toBe(6);
    await adapter.setWorking(thread, null);
    await waitFor(() => fake.messages.get(notice.id)?.deleted);
  });

  it("an option button answers with the option's label, and the buttons are removed", async () => {
    h = await startDiscordHarness({ threads: false });
    const { fake, sink, adapter } = h;
    const channel: ConversationRef = {
      platform: 'discord',
      workspace: fake.guildId,
      channel: fake.general.id,
      thread: null,
    };
    const buttons = ['Blue', 'Green'].map((label, i) => ({ actionId: answerActionId('run-3', 'q1', i), label }));
    const question = await adapter.postMessage(channel, {
      text: 'Which colour?',
      mentionUserId: fake.alice.id,
      buttons,
    });
    const click = fake.clickButton(question.id, answerActionId('run-3', 'q1', 1));
    await waitFor(() => click.callbacks.length === 1);
    expect(sink.actions).toEqual([
      {
        kind: 'answer',
        runId: 'run-3',
        questionId: 'q1',
        answer: 'Green',
        userId: fake.alice.id,
        conversation: channel,
        eventId: click.id,
      },
    ]);
    expect(click.callbacks[0]!.type).toBe(7);
    expect(fake.messages.get(question.id)).toMatchObject({ components: [] });
    expect(fake.messages.get(question.id)!.content).toContain('chose **Green**');
  });

  it('a reply from the core is shown only to the clicker; a slow core is deferred first', async () => {
    const sink = new ScriptedSink();
    sink.actionReply = { text: 'That question has already been answered.' };
    h = await startDiscordHarness({ threads: false, sink });
    const { fake, adapter } = h;
    const channel: ConversationRef = {
      platform: 'discord',
      workspace: fake.guildId,
      channel: fake.general.id,
      thread: null,
    };
    const question = await adapter.postMessage(channel, {
      text: 'Which?',
      buttons: [{ actionId: answerActionId('run-4', 'q1', 0), label: 'This' }],
    });
    const fast = fake.clickButton(question.id, answerActionId('run-4', 'q1', 0));
    await waitFor(() => fast.responses.length === 1);
    expect(fast.callbacks[0]).toMatchObject({
      type: 4,
      data: { flags: EPHEMERAL, content: 'That question has already been answered.' },
    });
    sink.delayMs = 300;
    const slow = fake.clickButton(question.id, answerActionId('run-4', 'q1', 0));
    await waitFor(() => slow.responses.length === 1);
    expect(slow.callbacks.map((c) => c.type)).toEqual([6]);
    expect(slow.responses[0]).toMatchObject({ ephemeral: true, content: 'That question has already been answered.' });
  });

  it('a button that is not one of Errand’s gets a polite ephemeral answer and never reaches the core', async () => {
    h = await startDiscordHarness({ threads: false });
    const { fake, sink, adapter } = h;
    const channel: ConversationRef = {
      platform: 'discord',
      workspace: fake.guildId,
      channel: fake.general.id,
      thread: null,
    };
    const posted = await adapter.postMessage(channel, {
      text: 'Old',
      buttons: [{ actionId: 'legacy:thing', label: 'Old' }],
    });
    const click = fake.clickButton(posted.id, 'legacy:thing');
    await waitFor(() => click.responses.length === 1);
    expect(click.responses[0]).toMatchObject({ ephemeral: true });
    expect(sink.actions).toEqual([]);
  });
});
