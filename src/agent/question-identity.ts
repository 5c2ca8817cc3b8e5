import { randomBytes } from 'node:crypto';
import { z } from 'zod';

/**
 * A new question id: 8 hex characters, random, so it needs no counter kept with the run (the run row
 * forgets its question once it is answered). It only has to differ from the other questions of the
 * same run, since every button also carries the run id.
 */
export function newQuestionId(): string {
  return randomBytes(4).toString('hex');
}

/** The parts of a stored question (JSON, possibly written by an older version) that say which one it is. */
const storedIdentity = z.object({ id: z.string().min(1).optional(), answer: z.unknown().optional() });

/**
 * Whether a click on a button of question `clickedId` may answer the stored `question`: it must be
 * that very question, and not answered already (an answer can be recorded and not yet applied).
 * A button without a question id (posted by an older version) never may: nothing proves it belongs
 * to the question waiting now.
 */
export function clickAnswers(question: unknown, clickedId: string | null): boolean {
  const parsed = storedIdentity.safeParse(question);
  if (!parsed.success || clickedId === null) return false;
  return parsed.data.id === clickedId && parsed.data.answer === undefined;
}
