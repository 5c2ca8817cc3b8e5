import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitationEvent, ElicitationReply } from '../../chat/elicitation-form.js';
import type { ElicitationEnd } from '../../runs/elicitation-store.js';
import type { ShownElicitation } from './elicitation-record.js';
import { elicitationTexts } from './elicitation-texts.js';
import { checkAnswers } from './form-answers.js';

/** How a question ends: the result the server gets, what its post says, and who ended it (null: a timeout or stop). */
export interface Ending {
  readonly result: ElicitResult;
  readonly outcome: string;
  readonly by: string | null;
}

/** An ending as the store keeps it. */
export function endOf(ending: Ending): ElicitationEnd {
  const state =
    ending.result.action === 'accept' ? 'answered' : ending.result.action === 'decline' ? 'declined' : 'cancelled';
  return { state, answer: ending.result, answeredBy: ending.by, outcome: ending.outcome };
}

/** What a person's action on a question comes to: a reply alone (a form to open, a field error, a refusal), or an ending with its reply. */
export type PersonsAnswer =
  | { readonly kind: 'reply'; readonly reply: ElicitationReply }
  | { readonly kind: 'end'; readonly ending: Ending; readonly reply: ElicitationReply };

/** Reads the principal's action on question `asked` (the caller checked it is theirs), checked against its schema. */
export function answerOf(
  asked: { readonly id: string; readonly server: string; readonly request: ShownElicitation },
  event: ElicitationEvent,
): PersonsAnswer {
  const { request, server } = asked;
  const by = event.userId;
  const refuse = (text: string): PersonsAnswer => ({ kind: 'reply', reply: { kind: 'refused', text } });
  switch (event.kind) {
    case 'open':
      if (request.mode !== 'form') return refuse(elicitationTexts.noForm);
      return {
        kind: 'reply',
        reply: { kind: 'form', form: { id: asked.id, server, message: request.message, fields: request.fields } },
      };
    case 'submit': {
      if (request.mode !== 'form') return refuse(elicitationTexts.noForm);
      const checked = checkAnswers(request.fields, event.values);
      if (!checked.ok) return { kind: 'reply', reply: { kind: 'errors', errors: checked.errors } };
      return {
        kind: 'end',
        ending: {
          result: { action: 'accept', content: checked.content },
          outcome: elicitationTexts.answeredBy(by),
          by,
        },
        reply: { kind: 'answered', text: elicitationTexts.sent(server) },
      };
    }
    case 'decline':
      return {
        kind: 'end',
        ending: { result: { action: 'decline' }, outcome: elicitationTexts.declinedBy(by), by },
        reply: { kind: 'answered', text: elicitationTexts.declined(server) },
      };
    case 'done':
      if (request.mode !== 'url') return refuse(elicitationTexts.noLink);
      return {
        kind: 'end',
        ending: { result: { action: 'accept' }, outcome: elicitationTexts.doneBy(by), by },
        reply: { kind: 'answered', text: elicitationTexts.toldDone(server) },
      };
    case 'dismiss':
      return {
        kind: 'end',
        ending: { result: { action: 'cancel' }, outcome: elicitationTexts.dismissed, by: null },
        reply: { kind: 'answered', text: elicitationTexts.dismissed },
      };
    case 'link':
      if (request.mode !== 'url') return refuse(elicitationTexts.noLink);
      return { kind: 'reply', reply: { kind: 'private', text: elicitationTexts.privateLink(server, request.url) } };
  }
}
