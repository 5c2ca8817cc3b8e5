import type { PostIntent } from './agent-types.js';

/** What a completed run records as its result when its answer was private (tasks and `/tasks` show it to anyone). */
export const PRIVATE_RESULT_SUMMARY = 'Answered with private material (shown to the person it was for).';

/**
 * Whether a run has taken in material private to its principal (DESIGN.md "Private stays private in a shared
 * thread"), and what follows: every row it writes from then on is private to them, and in a conversation others can
 * read its answers and updates go to them alone first, to share or keep.
 */
export interface RunPrivacy {
  /** The person the run's rows are private to from now on; null while the run holds nothing private. */
  readonly privateTo: string | null;
  /** The run took in a private result (from now on it is private). */
  obtained(): void;
  /** Whether its posts are held for the principal's choice now (private, and others read the conversation). */
  readonly holdsPosts: boolean;
  /** Whether people besides the principal read the conversation. */
  readonly othersRead: boolean;
  /** An answer or update as the run records it: held for the principal (with the transcript row it came from) when `holdsPosts`. */
  intent(purpose: 'answer' | 'update', text: string, messageId: number | null): PostIntent;
}

/**
 * The privacy of one execution of a run. `principal` is its principal's user id (null: a run that names nobody,
 * whose results cannot be anyone's: nothing is marked); `othersRead`: people besides the principal read the
 * conversation (a channel, its threads, a group DM), so a private answer needs its owner's consent to be posted.
 */
export function runPrivacy(principal: string | null, othersRead: boolean): RunPrivacy {
  let isPrivate = false;
  const privacy: RunPrivacy = {
    get privateTo() {
      return isPrivate ? principal : null;
    },
    obtained() {
      if (principal !== null) isPrivate = true;
    },
    get holdsPosts() {
      return isPrivate && othersRead;
    },
    othersRead,
    intent(purpose, text, messageId) {
      return privacy.holdsPosts ? { purpose, text, heldFor: { owner: principal!, messageId } } : { purpose, text };
    },
  };
  return privacy;
}
