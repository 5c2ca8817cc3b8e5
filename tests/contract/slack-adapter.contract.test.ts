import { startSlackAdapter } from '../e2e/slack-harness.js';
import { chatAdapterContract, RecordingSink } from './chat-adapter-contract.js';

chatAdapterContract('slack', async () => {
  const sink = new RecordingSink();
  const h = await startSlackAdapter(sink);
  const channel = { platform: 'slack', workspace: h.fake.teamId, channel: 'C0CONTRACT' };
  return {
    adapter: h.adapter,
    sink,
    channel,
    mentionBot: async (text) => void (await h.fake.mention({ user: 'U0ALICE01', channel: channel.channel, text })),
    postAsSelfAndOtherBot: async (text) => {
      await h.adapter.postMessage({ ...channel, thread: null }, { text: `<@${h.fake.botUserId}> ${text}` });
      await h.fake.otherBotMessage({ channel: channel.channel, text: `<@${h.fake.botUserId}> ${text}` });
      await h.fake.settle();
    },
    storedTexts: async (c) => h.fake.botTexts(c.channel, c.thread),
    teardown: () => h.close(),
  };
});
