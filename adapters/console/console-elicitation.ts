import {
  parseElicitationActionId,
  type CarriedOverElicitation,
  type ElicitationButtonOp,
  type ElicitationField,
  type ElicitationForm,
} from '../../src/chat/elicitation-form.js';
import type { SurfaceSink } from '../../src/chat/surface-sink.js';

export interface ConsoleElicitationDeps {
  readonly surfaces: () => SurfaceSink | null;
  /** Prints one of Errand's private lines (the prompts, errors and answers). */
  readonly say: (text: string) => void;
  /** Prints a question's post (one carried over a restart, put to the person again). */
  readonly post: (text: string) => void;
  /** Prints a question's numbered choices. */
  readonly options: (labels: readonly string[]) => void;
  readonly userId: string;
}

/** What the person is asked for one field: its label, what it takes, and what Enter keeps. */
function promptOf(field: ElicitationField): string {
  const keeps = (shown: string) => ` Enter keeps ${shown}.`;
  const label = (v: string) =>
    field.kind === 'choice' || field.kind === 'multi' ? (field.options.find((o) => o.value === v)?.label ?? v) : v;
  let wants: string;
  switch (field.kind) {
    case 'text':
      wants =
        field.format === 'date'
          ? 'a date, YYYY-MM-DD'
          : field.format === 'date-time'
            ? 'a date and time, like 2026-01-31T09:30:00Z'
            : field.format === 'email'
              ? 'an email address'
              : field.format === 'uri'
                ? 'a web address'
                : 'text';
      if (field.maxLength !== null) wants += `, at most ${field.maxLength} characters`;
      break;
    case 'number':
      wants = `${field.integer ? 'a whole number' : 'a number'}${field.minimum !== null ? ` from ${field.minimum}` : ''}${field.maximum !== null ? ` up to ${field.maximum}` : ''}`;
      break;
    case 'boolean':
      wants = 'yes or no';
      break;
    case 'choice':
      wants = `one of ${field.options.map((o, i) => `${i + 1}. ${o.label}`).join(', ')}`;
      break;
    case 'multi':
      wants = `any of ${field.options.map((o, i) => `${i + 1}. ${o.label}`).join(', ')} (comma-separated)`;
      break;
  }
  const initial = field.initial;
  const kept =
    initial === null || (Array.isArray(initial) && initial.length === 0)
      ? field.required
        ? ''
        : ' Enter leaves it empty.'
      : keeps(
          Array.isArray(initial)
            ? initial.map(label).join(', ')
            : typeof initial === 'boolean'
              ? initial
                ? 'yes'
                : 'no'
              : label(String(initial)),
        );
  const description = field.description ? ` — ${field.description}` : '';
  return `**${field.label}**${description} (${wants}${field.required ? ', required' : ''}).${kept}`;
}

/** A typed answer to a choice may be the option's number. */
function typedValue(field: ElicitationField, text: string): string | string[] {
  if (field.kind !== 'choice' && field.kind !== 'multi') return text;
  const one = (t: string) => (/^\d+$/.test(t) ? (field.options[Number(t) - 1]?.value ?? t) : t);
  return field.kind === 'choice'
    ? one(text)
    : text
        .split(',')
        .map((t) => one(t.trim()))
        .filter((t) => t !== '');
}

/**
 * An MCP server's question in the console: its post is followed by numbered choices (Answer / Decline, or
 * Done / Decline for a link); Answer asks one field at a time, each line typed being that field's answer
 * (Enter keeps the default), then sends the form; what is wrong is asked again, field by field. `decline`
 * typed at any point declines. Questions carried over a restart (their post went with the old process) are put
 * again when the console starts, one after the other, and answered the same way.
 */
export function createConsoleElicitation(deps: ConsoleElicitationDeps) {
  let offered: { id: string; ops: ElicitationButtonOp[] } | null = null;
  /** Piped input ended: no answer can come, so a question is cancelled as soon as it is asked. */
  let inputEnded = false;
  let filling: { form: ElicitationForm; queue: number[]; values: Record<string, string | string[]> } | null = null;
  /** Carried-over questions still to be put, once the one on screen is dealt with. */
  const carried: CarriedOverElicitation[] = [];
  /** The carried-over questions by id: they belong to an earlier session and outlive this one's input. */
  const carriedById = new Map<string, CarriedOverElicitation>();

  const surfaces = () => {
    const s = deps.surfaces();
    if (!s) throw new Error('the console was started without forms');
    return s;
  };

  function offer(buttons: readonly { actionId: string; label: string }[]): boolean {
    const refs = buttons.map((b) => parseElicitationActionId(b.actionId)).filter((r) => r !== null);
    const id = refs[0]?.id;
    if (!id) return false;
    if (inputEnded) {
      void act(id, 'dismiss').catch(() => {});
      return true;
    }
    offered = { id, ops: refs.map((r) => r.op) };
    deps.options(buttons.map((b) => b.label));
    return true;
  }

  /** Puts the next carried-over question, when none is on screen. */
  function putNext(): void {
    if (offered || filling) return;
    const q = carried.shift();
    if (!q) return;
    deps.post(q.text);
    if (q.privateLink) deps.say(q.privateLink);
    offer(q.buttons);
  }

  async function act(id: string, op: ElicitationButtonOp | 'dismiss'): Promise<void> {
    const actor = { id, platform: 'console', userId: deps.userId };
    if (op !== 'answer') {
      const reply = await surfaces().onElicitation({ kind: op, ...actor });
      if (op !== 'link') filling = null;
      if ('text' in reply) deps.say(reply.text);
      return putNext();
    }
    const reply = await surfaces().onElicitation({ kind: 'open', ...actor });
    if (reply.kind !== 'form') {
      deps.say(reply.kind === 'refused' ? reply.text : 'This question is closed.');
      return putNext();
    }
    filling = { form: reply.form, queue: reply.form.fields.map((_, i) => i), values: {} };
    await next();
  }

  /** Asks the next field, or sends the form once every field has an answer. */
  async function next(): Promise<void> {
    const f = filling;
    if (!f) return;
    const index = f.queue[0];
    if (index !== undefined) return void deps.say(promptOf(f.form.fields[index]!));
    const reply = await surfaces().onElicitation({
      kind: 'submit',
      id: f.form.id,
      platform: 'console',
      userId: deps.userId,
      values: f.values,
    });
    if (reply.kind === 'errors') {
      deps.say(
        `Not sent yet:\n${Object.entries(reply.errors)
          .map(([name, error]) => `• **${f.form.fields.find((x) => x.name === name)?.label ?? name}**: ${error}`)
          .join('\n')}`,
      );
      f.queue = f.form.fields.flatMap((field, i) => (field.name in reply.errors ? [i] : []));
      return next();
    }
    filling = null;
    if ('text' in reply) deps.say(reply.text);
    putNext();
  }

  return {
    /** A post was printed: when it is a server's question, its choices are offered. */
    posted(buttons: readonly { actionId: string; label: string }[]): boolean {
      // A carried-over question on screen gives way to the new one and is put again after it.
      const shown = offered ? carriedById.get(offered.id) : undefined;
      const isQuestion = offer(buttons);
      if (isQuestion && shown) carried.unshift(shown);
      return isQuestion;
    },
    /** At start: the questions carried over a restart, put to the person again one after the other. */
    carriedOver(questions: readonly CarriedOverElicitation[]): void {
      carried.push(...questions);
      for (const q of questions) carriedById.set(q.id, q);
      putNext();
    },
    /**
     * Piped input ended: the open question of this session, and any asked from now on, is cancelled (nobody can
     * answer); questions carried over from an earlier session are left waiting.
     */
    async inputEnd(): Promise<void> {
      inputEnded = true;
      // A question carried over from an earlier session stays open for a console that can answer it (or its timeout).
      carried.splice(0);
      const id = filling?.form.id ?? offered?.id;
      offered = null;
      filling = null;
      if (id && !carriedById.has(id)) await act(id, 'dismiss');
    },
    /** A typed line, when it answers a server's question (true), else false: it is then a message. */
    async line(text: string): Promise<boolean> {
      const f = filling;
      if (f) {
        if (text.toLowerCase() === 'decline') {
          await act(f.form.id, 'decline');
          return true;
        }
        const index = f.queue.shift()!;
        const field = f.form.fields[index]!;
        if (text.trim() !== '') f.values[field.name] = typedValue(field, text);
        else delete f.values[field.name];
        await next();
        return true;
      }
      const o = offered;
      if (!o) return false;
      const word = text.toLowerCase();
      const op = /^\d+$/.test(word) ? o.ops[Number(word) - 1] : o.ops.find((x) => x === word);
      if (!op) return false;
      offered = null;
      await act(o.id, op);
      return true;
    },
  };
}
