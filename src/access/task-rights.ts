import type { AccessPolicy, Person } from './access-policy.js';

/**
 * Whether `person` (a run's principal) may change, complete, fail or delete a to-do whose principal is
 * `requestedBy`: their own to-do, or they are an admin (DESIGN.md "Private stays private in a shared thread").
 * A to-do runs as its principal — their memories, their sign-ins, their budget — so another person's words
 * must never become its goal. A to-do that names nobody is anyone's where no access
 * rules are configured, else an admin's, as `/stop` decides it. Applies with or without access rules: the
 * to-do's principal is a person either way.
 */
export function mayChangeTask(
  requestedBy: string | null,
  person: Person | null,
  access: Pick<AccessPolicy, 'configured' | 'isAdmin'>,
): boolean {
  if (person !== null && access.isAdmin(person)) return true;
  if (requestedBy === null) return !access.configured;
  return person !== null && person.userId === requestedBy;
}
