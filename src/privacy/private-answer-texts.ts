/** The words people read around an answer held for its owner (DESIGN.md "Private stays private in a shared thread"). */

/** The labels of the two buttons under a held answer. */
export const SHARE_LABEL = 'Share in thread';
export const KEEP_LABEL = 'Keep private';

/** What the owner reads above the answer held for them. */
export function heldAnswerText(text: string, purpose: 'answer' | 'update'): string {
  const what = purpose === 'update' ? 'This update' : 'This answer';
  return `🔒 *Only you can see this.* ${what} uses what only you can see (your own sign-in or your memories), so I have not posted it in the thread. Share it there, or keep it private.\n\n${text}`;
}

/** What the thread reads when the owner kept an answer private: that there was one, never what it said. */
export function keptPrivateNote(owner: string): string {
  return `🔒 <@${owner}> kept an answer private: it used what only they can see.`;
}

/** What the clicker is told after their choice, or why nothing changed. */
export const choiceReplies = {
  shared: 'Shared in the thread.',
  kept: 'Kept private: the thread was only told that you kept an answer private.',
  alreadyShared: 'You already shared this answer in the thread.',
  alreadyKept: 'You already chose to keep this answer private.',
  gone: 'That answer no longer exists.',
  notYours: (owner: string) => `Only <@${owner}> can share this answer: it uses what only they can see.`,
} as const;

/** What the conversation reads when the platform refused to show an answer to its owner privately (Discord: DMs closed). */
export function unreachableOwnerNote(platformSays: string): string {
  return `I could not send you a private message (${platformSays}), so an answer that uses what only you can see stays unposted. To get such answers, allow direct messages from this server's members (the server's menu → Privacy Settings → Direct Messages) and ask again.`;
}
