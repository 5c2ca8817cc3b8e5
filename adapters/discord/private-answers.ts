import type { PrivateAnswerCapability } from '../../src/chat/adapter-capabilities.js';
import type { createDirectMessages } from './direct-messages.js';
import { DM_WORKSPACE } from './discord-thread-id.js';

/**
 * Answers built on one person's private material, on Discord: others read every conversation but a DM with the bot
 * (a bot is never in a group DM), and a run has no interaction to answer ephemerally, so the answer goes to its owner
 * as a direct message with its Share in thread / Keep private buttons (a click there is an interaction like any).
 * `refused` when their DMs are closed to the bot (50007).
 */
export function createDiscordPrivateAnswers(direct: ReturnType<typeof createDirectMessages>): PrivateAnswerCapability {
  return {
    othersRead: (conversation) => conversation.workspace !== DM_WORKSPACE,
    async showPrivately(_conversation, userId, message) {
      const sent = await direct.sendMessage(userId, message);
      return sent.kind === 'sent' ? { kind: 'shown' } : { kind: 'refused' };
    },
  };
}
