import { conversationKey, type ConversationRef } from '../../src/chat/conversation-ref.js';
import { MemoryAdapter } from '../fakes/memory-adapter.js';
import { waitFor } from '../fakes/wait-for.js';
import { chatAdapterContract, RecordingSink } from './chat-adapter-contract.js';
import { fromMemoryConversation, toMemoryConversation } from '../fakes/memory-adapter.js';
import { conversationKeyContract } from './conversation-key-contract.js';

chatAdapterContract(
  'in-memory',
  async () => {
    const adapter = new MemoryAdapter();
    adapter.timezones.set('U1', 'Europe/Berlin');
    const sink = new RecordingSink();
    await adapter.start(sink);
    const channel = { platform: 'memory', workspace: 'W1', channel: 'C1' };
    let last: { conversation: ConversationRef; text: string; messageId: string } | null = null;
    const say = async (conversation: ConversationRef, text: string) => {
      last = { conversation, text, messageId: await adapter.say(conversation, text) };
    };
    return {
      adapter,
      sink,
      channel,
      person: 'U1',
      personTimezone: 'Europe/Berlin',
      mentionBot: (text) => say({ ...channel, thread: null }, text),
      personSays: say,
      redeliverLast: async () => {
        if (!last) throw new Error('nothing to redeliver');
        await adapter.say(last.conversation, last.text, { messageId: last.messageId });
      },
      postAsSelfAndOtherBot: async (conversation, text) => {
        const before = adapter.droppedFromBots.length;
        const own = await adapter.postMessage(conversation, { text });
        const other = await adapter.sayAsOtherBot(conversation, `<@UBOT> ${text}`);
        await waitFor(() => adapter.droppedFromBots.includes(own.id) && adapter.droppedFromBots.includes(other));
        return adapter.droppedFromBots.length - before;
      },
      runCommand: async (name, args) => (await adapter.command(name, args, channel, null, 'U1')).text,
      click: async (conversation, _messageId, buttons, index) => void (await adapter.click(buttons[index]!.actionId, conversation, buttons[index]!.label, 'U1')),
      storedTexts: async (c) => adapter.posts.filter((p) => p.conversation === conversationKey(c)).map((p) => p.text),
      noticesTo: async (userId, c) => adapter.ephemerals.filter((e) => e.userId === userId && e.conversation === conversationKey(c)).map((e) => e.text),
      workingShown: async (c) => adapter.working.has(conversationKey(c)),
      teardown: () => adapter.stop(),
    };
  },
  { stopButtons: true, capabilities: ['history', 'privateAnswers', 'timezone'] },
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
