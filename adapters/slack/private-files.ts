import { z } from 'zod';
import type { FilePostCapability } from '../../src/chat/delivery.js';
import type { PrivateAnswerCapability } from '../../src/chat/adapter-capabilities.js';
import type { PrivateFilesCapability } from '../../src/chat/delivery.js';
import type { Logger } from '../../src/logger.js';
import type { OutboundQueue } from './outbound-queue.js';
import type { SlackCall } from './slack-call.js';
import { platformError } from './slack-api.js';
import { locate, okSchema } from './slack-outbound.js';
import { SLACK_PLATFORM } from './slack-thread-id.js';

const openedSchema = z.object({ channel: z.object({ id: z.string().min(1) }) });

/**
 * Files built on one person's private material, on Slack, which shows no file ephemerally: the files are uploaded into
 * that person's direct conversation with the bot (`conversations.open`, scope `im:write`; the same upload API as any
 * post of files) under a line saying where they came from, and the notice with Share in thread / Keep private is shown
 * ephemerally in the conversation like a held answer, saying where the files are. Where Slack refuses the direct
 * conversation (a missing scope, a workspace rule) the notice says so and names the files; the choice still works.
 */
export function createSlackPrivateFiles(deps: {
  readonly api: SlackCall;
  readonly queue: OutboundQueue;
  readonly files: FilePostCapability;
  readonly answers: PrivateAnswerCapability;
  readonly logger: Logger;
}): PrivateFilesCapability {
  return {
    async showFilesPrivately(conversation, userId, files, message) {
      let where: string;
      try {
        const { channel } = await deps.api('conversations.open', { users: userId }, openedSchema);
        const from = `🔒 Files from your request in <#${locate(conversation).channelId}>, made from what only you can see. Only you can see them here; share them in the thread from the note there.`;
        await deps.queue.enqueue(channel.id, (send) =>
          send(() => deps.api('chat.postMessage', { channel: channel.id, text: from }, okSchema)),
        );
        await deps.files.postFiles(
          { platform: SLACK_PLATFORM, workspace: conversation.workspace, channel: channel.id, thread: null },
          { files },
        );
        where = 'I sent them to you in our direct messages.';
      } catch (err) {
        const code = platformError(err);
        if (code === null) throw err;
        deps.logger.warn(
          { err, code },
          'Slack refused the direct conversation for private files; the notice names them',
        );
        where = `I could not send you the files themselves (Slack said: ${code}).`;
      }
      return deps.answers.showPrivately(conversation, userId, { ...message, text: `${message.text}\n\n${where}` });
    },
  };
}
