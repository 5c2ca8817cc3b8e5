import { attachedFiles, startDiscordHarness } from '../e2e/discord-harness.js';
import { nextSnowflake } from '../fakes/fake-discord.js';
import { waitFor } from '../fakes/wait-for.js';
import { chatAdapterContract, RecordingSurfaces } from './chat-adapter-contract.js';
import { fromConversationRef, toConversationRef } from '../../adapters/discord/discord-thread-id.js';
import { conversationKeyContract } from './conversation-key-contract.js';

chatAdapterContract(
  'discord',
  async () => {
    const surfaces = new RecordingSurfaces();
    const h = await startDiscordHarness({ surfaces });
    const { fake, adapter, sink } = h;
    const channel = { platform: 'discord', workspace: fake.guildId, channel: fake.general.id };
    const target = (c: { channel: string; thread: string | null }) => c.thread ?? c.channel;
    const closed = { id: nextSnowflake(), username: 'closed', dmsClosed: true };
    fake.users.set(closed.id, closed);
    const outsider = { id: nextSnowflake(), username: 'outsider', outsideGuild: true };
    fake.users.set(outsider.id, outsider);
    let last: string | null = null;
    return {
      adapter,
      sink,
      channel,
      person: fake.alice.id,
      nonMember: outsider.id,
      setPersonRoles: async (names) => {
        const ids = names.map((name) => fake.addRole(name).id);
        fake.users.get(fake.alice.id)!.roles = ids;
        return ids;
      },
      mentionBot: async (text) => void (last = fake.userMessage(fake.general.id, `<@${fake.bot.id}> ${text}`).id),
      personSays: async (c, text) => void (last = fake.userMessage(target(c), text).id),
      redeliverLast: async () => {
        if (!last) throw new Error('nothing to redeliver');
        fake.redeliver(last);
      },
      postAsSelfAndOtherBot: async (c, text) => {
        const before = fake.messageDispatches.length;
        const own = await adapter.postMessage(c, { text });
        const other = fake.userMessage(target(c), `<@${fake.bot.id}> ${text}`, fake.otherBot);
        const echoes = () => fake.messageDispatches.slice(before).filter((d) => d.t === 'MESSAGE_CREATE' && (d.messageId === own.id || d.messageId === other.id));
        await waitFor(() => echoes().length === 2, 5000, 'both bot posts to be dispatched');
        return echoes().length;
      },
      runCommand: async (name, args) => {
        const record = fake.slashCommand(name, fake.general.id, args ? [{ type: 3, name: 'target', value: args }] : []);
        return (await waitFor(() => record.responses[0], 5000, 'the command reply'))!.content;
      },
      click: async (_c, messageId, buttons, index) => void fake.clickButton(messageId, buttons[index]!.actionId),
      storedTexts: async (c) => fake.botMessagesIn(target(c)).map((m) => m.content),
      // Discord has no ephemeral messages outside interactions: the notice is a post that mentions the person.
      noticesTo: async (userId, c) =>
        fake
          .botMessagesIn(target(c))
          .map((m) => m.content)
          .filter((t) => t.includes(`<@${userId}>`)),
      directMessagesOf: async (userId) => {
        const dm = fake.dmChannelOf(userId);
        return dm ? fake.botMessagesIn(dm.id).map((m) => m.content) : [];
      },
      closedDmsPerson: closed.id,
      workingShown: async (c) => fake.botMessagesIn(target(c)).some((m) => m.content.startsWith('⏳ Working')),
      surfaces,
      submitScheduleForm: async (prompt, when) => {
        const command = fake.slashCommand('schedules', fake.general.id, [{ type: 1, name: 'add', options: [] }]);
        await waitFor(() => command.modal, 5000, 'the schedule form');
        const submit = fake.submitModal(command, { prompt, when, timezone: 'UTC' }, fake.general.id);
        return (await waitFor(() => submit.responses.at(-1)?.content, 5000, 'the answer to the form'))!;
      },
      storedFiles: async (c) => attachedFiles(fake, target(c)),
      directFilesOf: async (userId) => {
        const dm = fake.dmChannelOf(userId);
        return dm ? attachedFiles(fake, dm.id) : [];
      },
      teardown: () => h.close(),
    };
  },
  { stopButtons: true, capabilities: ['delete', 'directMessage', 'files', 'history', 'memberRoles', 'previewLookup', 'privateAnswers', 'privateFiles', 'stream'], readAfter: true, surfaces: { home: false, forms: true } },
);

conversationKeyContract('discord', {
  platform: 'discord',
  encode: toConversationRef,
  decode: fromConversationRef,
  dm: { location: { guildId: null, channelId: '1300000000000000101', threadId: null }, key: 'discord:@me:1300000000000000101:-' },
  thread: { location: { guildId: '1300000000000000001', channelId: '1300000000000000002', threadId: '1300000000000000003' }, key: 'discord:1300000000000000001:1300000000000000002:1300000000000000003' },
  channel: { location: { guildId: '1300000000000000001', channelId: '1300000000000000002', threadId: null }, key: 'discord:1300000000000000001:1300000000000000002:-' },
  malformed: [
    { guildId: '1300000000000000001', channelId: 'general', threadId: null },
    { guildId: 'guild', channelId: '1300000000000000002', threadId: null },
    { guildId: null, channelId: '1300000000000000101', threadId: '1300000000000000003' },
  ],
});
