import { chatAdapterContract } from './chat-adapter-contract.js';
import { startDiscordHarness } from '../e2e/discord-harness.js';

chatAdapterContract('discord', async () => {
  const h = await startDiscordHarness();
  const { fake, adapter, sink } = h;
  const channel = { platform: 'discord', workspace: fake.guildId, channel: fake.general.id };
  return {
    adapter,
    sink,
    channel,
    mentionBot: async (text) => void fake.userMessage(fake.general.id, `<@${fake.bot.id}> ${text}`),
    postAsSelfAndOtherBot: async (text) => {
      await adapter.postMessage({ ...channel, thread: null }, { text });
      fake.userMessage(fake.general.id, `<@${fake.bot.id}> ${text}`, fake.otherBot);
    },
    storedTexts: async (c) => fake.botMessagesIn(c.thread ?? c.channel).map((m) => m.content),
    teardown: () => h.close(),
  };
});
