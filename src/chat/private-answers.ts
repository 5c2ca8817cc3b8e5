/** How showing a message to one person alone went: shown, or refused by the platform for this person (DMs closed). */
export type PrivateShowResult = { readonly kind: 'shown' } | { readonly kind: 'refused' };

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
