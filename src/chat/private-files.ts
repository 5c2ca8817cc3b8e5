import type { ConversationRef } from './conversation-ref.js';
import type { OutboundFile } from './file-posts.js';
import type { OutboundMessage } from './outbound-message.js';
import type { PrivateShowResult } from './private-answers.js';

/**
 * Files built on one person's private material (what `run_code` wrote in a run holding it), shown to that person alone
 * before they choose **Share in thread** / **Keep private** (DESIGN.md "Private stays private in a shared thread"). A
 * capability, since no platform shows a file ephemerally: each shows them where only that person reads.
 */
export interface PrivateFilesCapability {
  /**
   * Shows `files` and `message` (with its buttons) to `userId` alone: Slack uploads the files into their direct
   * conversation with the bot and shows `message` ephemerally in the conversation; Discord sends both as direct
   * messages. `refused`: the platform will not reach this person privately (DMs closed); throws on transient
   * failures, like a post.
   */
  showFilesPrivately(
    conversation: ConversationRef,
    userId: string,
    files: readonly OutboundFile[],
    message: OutboundMessage,
  ): Promise<PrivateShowResult>;
}
