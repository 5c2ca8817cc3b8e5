import { startDiscordHarness } from '../e2e/discord-harness.js';
import { nextSnowflake, type FakeMessage, type FakeUser, type InteractionRecord } from '../fakes/fake-discord.js';
import { waitFor } from '../fakes/wait-for.js';
import { chatAdapterContract, RecordingSurfaces } from './chat-adapter-contract.js';
import { fromConversationRef, toConversationRef } from '../../adapters/discord/discord-thread-id.js';
import { conversationKeyContract } from './conversation-key-contract.js';
import { stepsIn } from './step-lines-read.js';

/** The labels of the buttons in a message's (or a response's) component rows. */
const buttonLabels = (m: { components: unknown[] }) =>
  (m.components as { components?: { label?: string }[] }[]).flatMap((row) =>
    (row.components ?? []).map((b) => b.label ?? ''),
  );
/** What the person was shown last in answer to an interaction (a reply, its edit or a follow-up). */
const answered = async (record: InteractionRecord) =>
  (await waitFor(() => record.responses.at(-1)?.content || undefined, 5000, 'the answer to the interaction'))!;

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
    const bob: FakeUser = { id: nextSnowflake(), username: 'bob' };
    fake.users.set(bob.id, bob);
    let last: string | null = null;
    /** The bot's posts in a conversation that notified `userId` when posted (Discord's notices are such posts). */
    const pinging = (userId: string, c: { channel: string; thread: string | null }) =>
      fake.botMessagesIn(target(c)).filter((m) => fake.pingedBy(m.id).includes(userId));
    const dmOf = (userId: string): FakeMessage[] => {
      const dm = fake.dmChannelOf(userId);
      return dm ? fake.botMessagesIn(dm.id) : [];
    };
    // Alice's DM with the bot exists once she wrote there: the one-to-one conversation and the channel without threads.
    const hello = fake.directMessage('hello from my DM 5700');
    const dm = fake.dmChannelOf(fake.alice.id)!;
    const dmChannel = { platform: 'discord', workspace: '@me', channel: dm.id };
    await waitFor(() => sink.messages.some((m) => m.messageId === hello.id), 5000, 'the DM to reach the adapter');
    return {
      adapter,
      sink,
      channel,
      person: fake.alice.id,
      otherPerson: bob.id,
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
        const echoes = () =>
          fake.messageDispatches
            .slice(before)
            .filter((d) => d.t === 'MESSAGE_CREATE' && (d.messageId === own.id || d.messageId === other.id));
        await waitFor(() => echoes().length === 2, 5000, 'both bot posts to be dispatched');
        return echoes().length;
      },
      runCommand: async (name, args) => {
        const record = fake.slashCommand(name, fake.general.id, args ? [{ type: 3, name: 'target', value: args }] : []);
        return (await waitFor(() => record.responses[0], 5000, 'the command reply'))!.content;
      },
      click: async (_c, messageId, buttons, index) => void fake.clickButton(messageId, buttons[index]!.actionId),
      storedTexts: async (c) => fake.botMessagesIn(target(c)).map((m) => m.content),
      // Discord has no ephemeral messages outside interactions: the notice is a post that notifies the person (and
      // no one else): its allowed_mentions decide who is pinged, not the text, which may name anyone.
      noticesTo: async (userId, c) => pinging(userId, c).map((m) => m.content),
      // A private answer is a DM to the person, with its buttons.
      privatelyShown: async (userId) => dmOf(userId).map((m) => ({ text: m.content, buttons: buttonLabels(m) })),
      directMessagesOf: async (userId) => dmOf(userId).map((m) => m.content),
      directConversation: { ...dmChannel, thread: null },
      unthreadable: async () => ({ channel: dmChannel, messageId: hello.id }),
      closedDmsPerson: closed.id,
      workingShown: async (c) => fake.botMessagesIn(target(c)).some((m) => m.content.startsWith('⏳ Working')),
      // The working note lists the run's steps under its first line.
      stepsShown: async (c) =>
        stepsIn(fake.botMessagesIn(target(c)).find((m) => m.content.startsWith('⏳ Working'))?.content ?? ''),
      surfaces,
      submitScheduleForm: async (prompt, when) => {
        const command = fake.slashCommand('schedules', fake.general.id, [{ type: 1, name: 'add', options: [] }]);
        await waitFor(() => command.modal, 5000, 'the schedule form');
        const submit = fake.submitModal(command, { prompt, when, timezone: 'UTC' }, fake.general.id);
        return (await waitFor(() => submit.responses.at(-1)?.content, 5000, 'the answer to the form'))!;
      },
      clickInCommandReply: async (name, args, actionId) => {
        const [sub, id] = args.split(' ');
        const command = fake.slashCommand(name, fake.general.id, [
          { type: 1, name: sub, options: id ? [{ type: 3, name: 'id', value: id }] : [] },
        ]);
        await answered(command);
        return answered(fake.clickInResponse(command, actionId));
      },
      answerElicitation: async (_c, messageId, buttons, values) => {
        const answer = fake.clickButton(messageId, buttons[0]!.actionId);
        await waitFor(() => answer.modal, 5000, "the server's form");
        const submit = fake.submitModal(answer, Object.fromEntries(values.map((v, i) => [`f${i}`, v])));
        await answered(submit);
      },
      actOnElicitation: async (_c, messageId, buttons, index) =>
        answered(fake.clickButton(messageId, buttons[index]!.actionId)),
      // Each file with the message that carries it (files posted together share one).
      storedFiles: async (c) =>
        fake.botMessagesIn(target(c)).flatMap((m) =>
          (m.attachments ?? []).map((a) => ({
            name: a.name,
            bytes: a.bytes,
            ...(a.contentType ? { mimeType: a.contentType } : {}),
            message: m.id,
          })),
        ),
      directFilesOf: async (userId) => {
        const dm = fake.dmChannelOf(userId);
        return dm
          ? fake
              .botMessagesIn(dm.id)
              .flatMap((m) => (m.attachments ?? []).map((a) => ({ name: a.name, bytes: a.bytes, message: m.id })))
          : [];
      },
      teardown: () => h.close(),
    };
  },
  {
    stopButtons: true,
    redelivers: true,
    steps: 'working',
    threadFallback: true,
    commandReplyButtons: true,
    surfaces: { home: false, forms: true, elicitation: true, disconnect: false },
    capabilities: [
      'delete',
      'directMessage',
      'files',
      'history',
      'memberRoles',
      'previewLookup',
      'privateAnswers',
      'privateFiles',
      'stream',
    ],
    readAfter: true,
  },
);

conversationKeyContract('discord', {
  platform: 'discord',
  encode: toConversationRef,
  decode: fromConversationRef,
  dm: {
    location: { guildId: null, channelId: '1300000000000000101', threadId: null },
    key: 'discord:@me:1300000000000000101:-',
  },
  thread: {
    location: { guildId: '1300000000000000001', channelId: '1300000000000000002', threadId: '1300000000000000003' },
    key: 'discord:1300000000000000001:1300000000000000002:1300000000000000003',
  },
  channel: {
    location: { guildId: '1300000000000000001', channelId: '1300000000000000002', threadId: null },
    key: 'discord:1300000000000000001:1300000000000000002:-',
  },
  malformed: [
    { guildId: '1300000000000000001', channelId: 'general', threadId: null },
    { guildId: 'guild', channelId: '1300000000000000002', threadId: null },
    { guildId: null, channelId: '1300000000000000101', threadId: '1300000000000000003' },
  ],
});
