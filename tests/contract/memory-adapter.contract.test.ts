import { conversationKey, type ConversationRef } from '../../src/chat/conversation-ref.js';
import { MemoryAdapter } from '../fakes/memory-adapter.js';
import { waitFor } from '../fakes/wait-for.js';
import { chatAdapterContract, RecordingSink } from './chat-adapter-contract.js';
import { fromMemoryConversation, toMemoryConversation } from '../fakes/memory-adapter.js';
import { conversationKeyContract } from './conversation-key-contract.js';
import { stepsIn } from './step-lines-read.js';

chatAdapterContract(
  'in-memory',
  async () => {
    const adapter = new MemoryAdapter();
    // The contract reads the fake platform the adapter talks to, never the adapter's own records.
    const { server } = adapter;
    server.timezones.set('U1', 'Europe/Berlin');
    const sink = new RecordingSink();
    await adapter.start(sink);
    const channel = { platform: 'memory', workspace: 'W1', channel: 'C1' };
    let last: { conversation: ConversationRef; text: string; messageId: string } | null = null;
    const say = async (conversation: ConversationRef, text: string) => {
      last = { conversation, text, messageId: await adapter.say(conversation, text) };
    };
    const statusOf = (c: ConversationRef) => server.statusLines.get(conversationKey(c)) ?? null;
    return {
      adapter,
      sink,
      channel,
      person: 'U1',
      otherPerson: 'U2',
      personTimezone: 'Europe/Berlin',
      mentionBot: (text) => say({ ...channel, thread: null }, text),
      personSays: say,
      redeliverLast: async () => {
        if (!last) throw new Error('nothing to redeliver');
        const { conversation, text, messageId } = last;
        await server.deliver({ message: { messageId, conversation, userId: 'U1', text }, fromBot: false });
      },
      postAsSelfAndOtherBot: async (conversation, text) => {
        const before = server.delivered.length;
        const own = await adapter.postMessage(conversation, { text });
        const other = await adapter.sayAsOtherBot(conversation, `<@UBOT> ${text}`);
        const fromBots = () =>
          server.delivered
            .slice(before)
            .filter((e) => e.fromBot && (e.message.messageId === own.id || e.message.messageId === other));
        await waitFor(() => fromBots().length === 2, 5000, 'both bot posts to be delivered');
        return fromBots().length;
      },
      hearBots: () => {
        // The adapter as it would be without its filter: every delivered post goes on to the core.
        adapter.deliver = async (event) => sink.onMessage(event.message);
        return () => void delete (adapter as { deliver?: unknown }).deliver;
      },
      runCommand: async (name, args) => (await adapter.command(name, args, channel, null, 'U1')).text,
      click: async (conversation, _messageId, buttons, index) =>
        void (await adapter.click(buttons[index]!.actionId, conversation, buttons[index]!.label, 'U1')),
      storedTexts: async (c) => server.messagesIn(c).map((p) => p.text),
      noticesTo: async (userId, c) => server.noticesTo(userId, c).map((n) => n.text),
      privatelyShown: async (userId, c) =>
        server.noticesTo(userId, c).map((n) => ({ text: n.text, buttons: n.buttons.map((b) => b.label) })),
      workingShown: async (c) => statusOf(c) !== null,
      stepsShown: async (c) => stepsIn(statusOf(c)?.text ?? ''),
      unthreadable: async () => {
        const dm = { ...channel, channel: 'D1' };
        return { channel: dm, messageId: await adapter.say({ ...dm, thread: null }, 'no threads in a DM 5700') };
      },
      directConversation: { ...channel, channel: 'D1', thread: null },
      teardown: () => adapter.stop(),
    };
  },
  {
    stopButtons: true,
    redelivers: true,
    steps: 'working',
    threadFallback: true,
    commandReplyButtons: false,
    echoFilterReachable: true,
    capabilities: ['history', 'privateAnswers', 'timezone'],
  },
);

conversationKeyContract('in-memory', {
  platform: 'memory',
  encode: toMemoryConversation,
  decode: fromMemoryConversation,
  dm: { location: { workspace: 'W1', channel: 'D1', thread: null }, key: 'memory:W1:D1:-' },
  thread: { location: { workspace: 'W1', channel: 'C1', thread: 'T1' }, key: 'memory:W1:C1:T1' },
  channel: { location: { workspace: 'W1', channel: 'C1', thread: null }, key: 'memory:W1:C1:-' },
  malformed: [
    { workspace: 'W1', channel: 'C:1', thread: null },
    { workspace: '', channel: 'C1', thread: null },
    { workspace: 'W1', channel: 'C1', thread: 'T 1' },
  ],
});
