/**
 * An MCP server's question (elicitation) in platform-neutral terms: the form adapters render (Slack modal,
 * Discord modal or buttons, console prompts), what a person does with it, and what the core answers. The
 * core builds the form from the server's requested schema and validates every submission itself, so each
 * adapter only draws fields and hands back what was typed or picked.
 */

/** One choice of a single- or multi-select field: the value sent to the server and the label shown. */
export interface ElicitationOption {
  readonly value: string;
  readonly label: string;
}

/** The choices a boolean field is offered as where a platform has no checkbox: the values the core reads back. */
export const YES_NO_OPTIONS: readonly ElicitationOption[] = [
  { value: 'true', label: 'Yes' },
  { value: 'false', label: 'No' },
];

interface FieldBase {
  /** The property name in the requested schema (the key of the answer). */
  readonly name: string;
  /** The schema's `title`, else the property name. */
  readonly label: string;
  readonly description: string | null;
  readonly required: boolean;
}

/** A field of the form; `initial` is the schema's `default`, filled in when the form opens. */
export type ElicitationField =
  | (FieldBase & {
      readonly kind: 'text';
      readonly format: 'email' | 'uri' | 'date' | 'date-time' | null;
      readonly minLength: number | null;
      readonly maxLength: number | null;
      readonly initial: string | null;
    })
  | (FieldBase & {
      readonly kind: 'number';
      readonly integer: boolean;
      readonly minimum: number | null;
      readonly maximum: number | null;
      readonly initial: number | null;
    })
  | (FieldBase & { readonly kind: 'boolean'; readonly initial: boolean | null })
  | (FieldBase & {
      readonly kind: 'choice';
      readonly options: readonly ElicitationOption[];
      readonly initial: string | null;
    })
  | (FieldBase & {
      readonly kind: 'multi';
      readonly options: readonly ElicitationOption[];
      readonly minItems: number | null;
      readonly maxItems: number | null;
      readonly initial: readonly string[] | null;
    });

/** The form a person opens with **Answer**: which server asks, its message, and the fields. */
export interface ElicitationForm {
  /** The elicitation's id (from the button that opened it); a submission names it. */
  readonly id: string;
  /** The configured name of the MCP server that asks (shown, so the person knows who wants the data). */
  readonly server: string;
  readonly message: string;
  readonly fields: readonly ElicitationField[];
}

/**
 * What a person typed or picked, per field name, as the platform hands it over: text as typed (a number or a
 * date too), a select's value, `'true'`/`'false'` for a yes/no, a list for a multi-select; null or absent when
 * left empty (the field's default then applies).
 */
export type ElicitationValues = Readonly<Record<string, string | readonly string[] | null | undefined>>;

/** Who acted on which elicitation, from which platform. */
interface ElicitationActor {
  readonly id: string;
  readonly platform: string;
  readonly userId: string;
}

/**
 * A person acting on an elicitation: `open` (Answer clicked: the form to show), `submit` (the form's values),
 * `decline` (Decline clicked), `done` (URL mode: they say they finished on the page), `link` (URL mode, where
 * the link could not be sent to them privately: Show link clicked), `dismiss` (nobody can answer any more: the
 * console's piped input ended; the server hears `cancel`).
 */
export type ElicitationEvent =
  | (ElicitationActor & { readonly kind: 'open' })
  | (ElicitationActor & { readonly kind: 'submit'; readonly values: ElicitationValues })
  | (ElicitationActor & { readonly kind: 'decline' | 'done' | 'link' | 'dismiss' });

/**
 * The core's answer: the form to open; field errors to show on it (keyed by field name); `answered` (the
 * answer went to the server; `text` says so to the person); `private` (`text` is for the clicker's eyes only:
 * the link); `refused` (not theirs, or no longer open: `text` says why, privately). Every kind with a `text`
 * is shown to the clicker alone.
 */
export type ElicitationReply =
  | { readonly kind: 'form'; readonly form: ElicitationForm }
  | { readonly kind: 'errors'; readonly errors: Readonly<Record<string, string>> }
  | { readonly kind: 'answered' | 'private' | 'refused'; readonly text: string };

/**
 * A question carried over a restart, to be put to its person again where the surface keeps no post between
 * processes (the console): the post's text, its buttons (acted on through onElicitation as usual), and for a
 * link the private line that gives it to them again.
 */
export interface CarriedOverElicitation {
  readonly id: string;
  readonly text: string;
  readonly buttons: readonly { readonly actionId: string; readonly label: string }[];
  readonly privateLink: string | null;
}

/** What a person may do on an elicitation's post; each button carries one. */
export type ElicitationButtonOp = 'answer' | 'decline' | 'done' | 'link';

const ELICIT_PREFIX = 'errand:elicit:';
const OPS: readonly string[] = ['answer', 'decline', 'done', 'link'];

/** What an elicitation id looks like: short, no `:` (it rides in Discord's 100-character custom ids). */
export const ELICITATION_ID_PATTERN = /^[0-9a-z]{1,16}$/;

/** The action id of an elicitation's button: `errand:elicit:<id>:<answer|decline|done|link>`. */
export function elicitationActionId(id: string, op: ElicitationButtonOp): string {
  if (!ELICITATION_ID_PATTERN.test(id))
    throw new Error(`elicitation id "${id}" is not 1–16 lowercase letters or digits`);
  return `${ELICIT_PREFIX}${id}:${op}`;
}

/** Decodes an elicitation button's action id; null when it is not one. */
export function parseElicitationActionId(
  actionId: string,
): { readonly id: string; readonly op: ElicitationButtonOp } | null {
  if (!actionId.startsWith(ELICIT_PREFIX)) return null;
  const [id, op, ...rest] = actionId.slice(ELICIT_PREFIX.length).split(':');
  if (rest.length > 0 || !id || !ELICITATION_ID_PATTERN.test(id) || !op || !OPS.includes(op)) return null;
  return { id, op: op as ElicitationButtonOp };
}
