/**
 * What another person's run reads in place of material private to `owner` (DESIGN.md "Private stays private in a
 * shared thread"): enough to know something was there and whose it is, nothing of what it said.
 */
export function privateResultPlaceholder(owner: string): string {
  return `(a result private to <@${owner}>)`;
}

/** An answer (or steps) of `owner`'s run built on their private material, as anyone else's run reads it. */
export function privateAnswerPlaceholder(owner: string, said: boolean): string {
  return said ? `(an answer private to <@${owner}>)` : `(steps private to <@${owner}>)`;
}
