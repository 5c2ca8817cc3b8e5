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

/** What the owner reads with files a private run's code wrote (the files themselves come with it, or `refused` says why not). */
export function heldFilesText(names: readonly string[], refused: readonly string[] = []): string {
  const them = names.length === 1 ? 'it' : 'them';
  const list = names.map((n) => `\`${n}\``).join(', ');
  const head =
    names.length > 0
      ? `🔒 *Only you can see this.* The code wrote ${names.length === 1 ? 'a file' : `${names.length} files`} from what only you can see (your own sign-in or your memories), so I have not posted ${them} in the thread: ${list}. Share ${them} there, or keep ${them} private.`
      : '🔒 *Only you can see this.* The code wrote files from what only you can see, but none could be posted.';
  return refused.length > 0 ? `${head}\n\n${refused.join('\n')}` : head;
}

/** What the model is told of output files held for the person it works for. */
export const HELD_FILES_REASON =
  'shown to the person you work for alone: they came from what only they can see, and that person chooses whether to share them in the thread';

/** What the thread reads when the owner kept files private: that there were some, never their names or bytes. */
export function keptFilesNote(owner: string, count: number): string {
  return `🔒 <@${owner}> kept ${count === 1 ? 'a file' : `${count} files`} private: ${count === 1 ? 'it' : 'they'} used what only they can see.`;
}

/** What the clicker is told after keeping files private. */
export const keptFilesReply = 'Kept private: the thread was only told that you kept files private.';

/** What the conversation reads when the platform refused to show files to their owner privately (Discord: DMs closed). */
export function unreachableFilesOwnerNote(platformSays: string): string {
  return `I could not send you a private message (${platformSays}), so files that use what only you can see stay unposted. To get such files, allow direct messages from this server's members (the server's menu → Privacy Settings → Direct Messages) and ask again.`;
}

/**
 * What the conversation reads (with its person mentioned) when a question or approval of a run holding their private
 * material went to them privately somewhere else (a Discord DM): that they have one waiting, never what it asks.
 */
export function privateQuestionPointer(approval: boolean): string {
  return approval
    ? '🔒 I need your approval for a step that uses what only you can see: I sent it to you in a direct message.'
    : '🔒 I have a question for you that uses what only you can see: I sent it to you in a direct message.';
}

/** What the conversation reads (with its person mentioned) when such a question could not reach them privately. */
export function unreachableQuestionNote(approval: boolean, platformSays: string): string {
  const what = approval ? 'your approval for a step' : 'your answer to a question';
  return `🔒 I need ${what} that uses what only you can see, but I could not send you a private message (${platformSays}), so I have not asked it here. To answer such questions, allow direct messages from this server's members (the server's menu → Privacy Settings → Direct Messages) and ask again; until then it waits, and counts as unanswered when its time is up.`;
}
