import { RESTJSONErrorCodes } from 'discord.js';
import type { FilePostCapability } from '../../src/chat/delivery.js';
import type { PrivateFilesCapability } from '../../src/chat/delivery.js';
import { TargetGoneError } from '../../src/errors.js';
import type { createDirectMessages } from './direct-messages.js';
import { DISCORD_PLATFORM, DM_WORKSPACE } from './discord-thread-id.js';

/**
 * Files built on one person's private material, on Discord: sent to them in their direct messages with the bot (a
 * message of attachments, then the notice with Share in thread / Keep private), since a bot's channel messages are
 * public and a run has no interaction to answer ephemerally. `refused` when their DMs are closed to the bot (50007).
 */
export function createDiscordPrivateFiles(
  direct: ReturnType<typeof createDirectMessages>,
  files: FilePostCapability,
): PrivateFilesCapability {
  return {
    async showFilesPrivately(_conversation, userId, shown, message) {
      const channel = await direct.channelOf(userId);
      try {
        await files.postFiles(
          { platform: DISCORD_PLATFORM, workspace: DM_WORKSPACE, channel, thread: null },
          { files: shown },
        );
      } catch (err) {
        if (
          err instanceof TargetGoneError &&
          err.platformCode === String(RESTJSONErrorCodes.CannotSendMessagesToThisUser)
        )
          return { kind: 'refused' };
        throw err;
      }
      const sent = await direct.sendMessage(userId, message);
      return sent.kind === 'sent' ? { kind: 'shown' } : { kind: 'refused' };
    },
  };
}
