import { conversationKey } from '../../src/chat/conversation-ref.js';
import { MemoryAdapter } from '../fakes/memory-adapter.js';
import { chatAdapterContract, RecordingSink } from './chat-adapter-contract.js';

chatAdapterContract('in-memory', async () => {
  const adapter = new MemoryAdapter();
  const sink = new RecordingSink();
  await adapter.start(sink);
  const channel = { platform: 'memory', workspace: 'W1', channel: 'C1' };
  return {
    adapter,
    sink,
    channel,
    mentionBot: async (text) => void (await adapter.say({ ...channel, thread: null }, text)),
    postAsSelfAndOtherBot: async () => {},
    storedTexts: async (c) => adapter.posts.filter((p) => p.conversation === conversationKey(c)).map((p) => p.text),
    teardown: () => adapter.stop(),
  };
});
