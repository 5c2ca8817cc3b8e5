import type { ConversationRef } from './conversation-ref.js';
import type { OutboundMessage } from './outbound-message.js';

/** How showing a message to one person alone went: shown, or refused by the platform for this person (DMs closed). */
export type PrivateShowResult = { readonly kind: 'shown' } | { readonly kind: 'refused' };

/**
 * Answers built on one person's private material (DESIGN.md "Private stays private in a shared thread"): whether
 * others read a conversation (so such an answer needs its owner's consent first), and showing it to its owner alone
 * with its **Share in thread** / **Keep private** buttons. A capability, since each platform does it its own way.
 */
export interface PrivateAnswerCapability {
  /** Whether people besides the one talking to the bot read the conversation: a channel, its threads, a group DM; false in a 1:1 DM. */
  othersRead(conversation: ConversationRef): boolean;
  /**
   * Shows `message`, its buttons included, to `userId` alone: Slack an ephemeral message in the conversation, Discord
   * a direct message (a bot's channel messages are public, and a run has no interaction to answer ephemerally), the
   * console prints it. `refused`: the platform will not deliver it to this person privately; throws on transient
   * failures, like a post.
   */
  showPrivately(conversation: ConversationRef, userId: string, message: OutboundMessage): Promise<PrivateShowResult>;
}

/** What the owner of a held answer chose. */
export type PrivateAnswerChoice = 'share' | 'keep';

const PATTERN = /^errand:private:(share|keep):(\d{1,15})$/;

/** The action id of a held answer's button: `errand:private:<share|keep>:<id>`. */
export function privateAnswerActionId(choice: PrivateAnswerChoice, answerId: number): string {
  return `errand:private:${choice}:${answerId}`;
}

/** The choice and held answer a button names; null when the id is not one. */
export function parsePrivateAnswerActionId(actionId: string): { choice: PrivateAnswerChoice; answerId: number } | null {
  const match = PATTERN.exec(actionId);
  return match ? { choice: match[1] as PrivateAnswerChoice, answerId: Number(match[2]) } : null;
}
