import {
  ComponentType,
  MessageFlags,
  TextInputStyle,
  type APIModalInteractionResponseCallbackData,
  type ButtonInteraction,
  type ModalSubmitInteraction,
} from 'discord.js';
import {
  parseElicitationActionId,
  YES_NO_OPTIONS,
  type ElicitationField,
  type ElicitationForm,
  type ElicitationOption,
} from '../../src/chat/elicitation-form.js';
import type { SurfaceSink } from '../../src/chat/surface-sink.js';
import type { Logger } from '../../src/logger.js';
import { toActionRows } from './message-bodies.js';

/** Discord's limits: five text inputs per modal, a title of 45 characters, a label of 45, a placeholder of 100. */
const PER_MODAL = 5;
const TITLE_MAX = 45;
const LABEL_MAX = 45;
const PLACEHOLDER_MAX = 100;
/** Buttons for one choice: at most 5 rows of 5, one row kept for Decline. */
const MAX_PICK_BUTTONS = 20;
const KEEP_DRAFTS = 500;

const PAGE_PREFIX = 'errand:elicit-page:';
const FORM_PREFIX = 'errand:elicit-form:';
const PICK_PREFIX = 'errand:elicit-pick:';

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const DISCORD = 'discord';

/** What a text input says it wants, where Discord has no other input than text. */
function placeholderOf(field: ElicitationField): string {
  switch (field.kind) {
    case 'text':
      if (field.format === 'date') return 'YYYY-MM-DD';
      if (field.format === 'date-time') return '2026-01-31T09:30:00Z';
      if (field.format === 'email') return 'name@example.com';
      if (field.format === 'uri') return 'https://…';
      return field.description ?? '';
    case 'number': {
      const kind = field.integer ? 'A whole number' : 'A number';
      if (field.minimum !== null && field.maximum !== null) return `${kind} from ${field.minimum} to ${field.maximum}`;
      if (field.minimum !== null) return `${kind}, ${field.minimum} or more`;
      if (field.maximum !== null) return `${kind}, ${field.maximum} or less`;
      return kind;
    }
    case 'boolean':
      return 'yes or no';
    case 'choice':
      return `One of: ${field.options.map((o) => o.label).join(', ')}`;
    case 'multi':
      return `Any of (comma-separated): ${field.options.map((o) => o.label).join(', ')}`;
  }
}

/** A field's prefilled text: its default, a choice by its label (typed answers are read by label too). */
function shownValue(field: ElicitationField, draft: string | undefined): string {
  if (draft !== undefined) return draft;
  const label = (options: readonly ElicitationOption[], v: string) => options.find((o) => o.value === v)?.label ?? v;
  switch (field.kind) {
    case 'text':
      return field.initial ?? '';
    case 'number':
      return field.initial === null ? '' : String(field.initial);
    case 'boolean':
      return field.initial === null ? '' : field.initial ? 'yes' : 'no';
    case 'choice':
      return field.initial === null ? '' : label(field.options, field.initial);
    case 'multi':
      return (field.initial ?? []).map((v) => label(field.options, v)).join(', ');
  }
}

/** A form of one choice or one yes/no: buttons are quicker than a modal. */
function pickOptions(form: ElicitationForm): readonly ElicitationOption[] | null {
  const [only, ...rest] = form.fields;
  if (!only || rest.length > 0) return null;
  if (only.kind === 'boolean') return YES_NO_OPTIONS;
  if (only.kind === 'choice' && only.options.length <= MAX_PICK_BUTTONS) return only.options;
  return null;
}

export interface DiscordElicitationDeps {
  readonly surfaces: SurfaceSink;
  readonly logger: Logger;
}

/**
 * An MCP server's question on Discord. **Answer** opens a modal of text inputs (Discord modals take five; a
 * longer form comes as a sequence, each part answered with a **Continue** button, since a modal cannot open
 * another); a form of one choice or one yes/no is answered with buttons instead. Discord modals cannot show
 * errors on their fields, so wrong answers come back as a private list with **Fix it**, which reopens the form
 * as submitted. **Decline** and **Done** answer at once. Drafts are kept here, in memory, per question and person.
 */
export function createDiscordElicitations(deps: DiscordElicitationDeps) {
  const drafts = new Map<string, Record<string, string>>();
  const key = (id: string, userId: string) => `${id}:${userId}`;

  function modal(
    form: ElicitationForm,
    page: number,
    draft: Record<string, string>,
  ): APIModalInteractionResponseCallbackData {
    const pages = Math.max(1, Math.ceil(form.fields.length / PER_MODAL));
    const fields = form.fields.slice(page * PER_MODAL, page * PER_MODAL + PER_MODAL);
    const part = pages > 1 ? ` (${page + 1}/${pages})` : '';
    return {
      custom_id: `${FORM_PREFIX}${form.id}:${page}`,
      title: cut(`${form.server} asks${part}`, TITLE_MAX),
      components: fields.map((field, i) => {
        const value = shownValue(field, draft[field.name]);
        const long = field.kind === 'text' && field.format === null && (field.maxLength ?? 4000) > 200;
        return {
          type: ComponentType.ActionRow as const,
          components: [
            {
              type: ComponentType.TextInput as const,
              custom_id: `f${page * PER_MODAL + i}`,
              label: cut(field.label, LABEL_MAX),
              style: long ? TextInputStyle.Paragraph : TextInputStyle.Short,
              required: field.required && field.initial === null,
              ...(field.kind === 'text' && field.maxLength !== null
                ? { max_length: Math.min(field.maxLength, 4000) }
                : {}),
              ...(placeholderOf(field) ? { placeholder: cut(placeholderOf(field), PLACEHOLDER_MAX) } : {}),
              ...(value ? { value: value.slice(0, 4000) } : {}),
            },
          ],
        };
      }),
    };
  }

  const refuse = (interaction: ButtonInteraction | ModalSubmitInteraction, text: string) =>
    interaction.reply({ content: cut(text, 2000), flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } });

  /** The form to show to this person, or the private refusal already sent. */
  async function formFor(
    interaction: ButtonInteraction | ModalSubmitInteraction,
    id: string,
  ): Promise<ElicitationForm | null> {
    const reply = await deps.surfaces.onElicitation({
      kind: 'open',
      id,
      platform: DISCORD,
      userId: interaction.user.id,
    });
    if (reply.kind === 'form') return reply.form;
    await refuse(interaction, reply.kind === 'refused' ? reply.text : 'This question is closed.');
    return null;
  }

  async function submit(
    interaction: ButtonInteraction | ModalSubmitInteraction,
    form: ElicitationForm,
    values: Record<string, string>,
  ): Promise<void> {
    const reply = await deps.surfaces.onElicitation({
      kind: 'submit',
      id: form.id,
      platform: DISCORD,
      userId: interaction.user.id,
      values,
    });
    if (reply.kind === 'errors') {
      const lines = Object.entries(reply.errors).map(
        ([name, error]) => `• **${form.fields.find((f) => f.name === name)?.label ?? name}**: ${error}`,
      );
      const first = form.fields.findIndex((f) => f.name in reply.errors);
      const page = Math.max(0, Math.floor(first / PER_MODAL));
      const components = toActionRows([
        { actionId: `${PAGE_PREFIX}${form.id}:${page}`, label: 'Fix it', style: 'primary' },
      ]);
      await interaction.reply({
        content: cut(`Not sent yet:\n${lines.join('\n')}`, 2000),
        components,
        flags: MessageFlags.Ephemeral,
        allowedMentions: { parse: [] },
      });
      return;
    }
    drafts.delete(key(form.id, interaction.user.id));
    await refuse(interaction, 'text' in reply ? reply.text : 'Sent.');
  }

  /** A click on an elicitation button (Answer, Decline, Done, a choice, Continue / Fix it); false when it is not one. */
  async function onButton(interaction: ButtonInteraction): Promise<boolean> {
    const id = interaction.customId;
    const userId = interaction.user.id;
    if (id.startsWith(PICK_PREFIX)) {
      const [elicitationId = '', index = ''] = id.slice(PICK_PREFIX.length).split(':');
      const form = await formFor(interaction, elicitationId);
      const field = form?.fields[0];
      const option = form ? pickOptions(form)?.[Number(index)] : undefined;
      if (form && field && option) await submit(interaction, form, { [field.name]: option.value });
      else if (form) await refuse(interaction, 'That choice is no longer offered.');
      return true;
    }
    if (id.startsWith(PAGE_PREFIX)) {
      const [elicitationId = '', page = '0'] = id.slice(PAGE_PREFIX.length).split(':');
      const form = await formFor(interaction, elicitationId);
      if (form) await interaction.showModal(modal(form, Number(page), drafts.get(key(elicitationId, userId)) ?? {}));
      return true;
    }
    const ref = parseElicitationActionId(id);
    if (!ref) return false;
    if (ref.op === 'answer') {
      const form = await formFor(interaction, ref.id);
      if (!form) return true;
      const picks = pickOptions(form);
      // Nothing to fill in (a confirmation): the click is the answer, and Discord refuses a modal without inputs.
      if (form.fields.length === 0) await submit(interaction, form, {});
      else if (picks) {
        const buttons = picks.map((o, n) => ({ actionId: `${PICK_PREFIX}${form.id}:${n}`, label: cut(o.label, 80) }));
        const components = toActionRows([
          ...buttons,
          { actionId: `errand:elicit:${form.id}:decline`, label: 'Decline', style: 'danger' },
        ]);
        await interaction.reply({
          content: cut(`**${form.server}** asks: ${form.message}`, 2000),
          components,
          flags: MessageFlags.Ephemeral,
          allowedMentions: { parse: [] },
        });
      } else {
        await interaction.showModal(modal(form, 0, drafts.get(key(form.id, userId)) ?? {}));
      }
      return true;
    }
    const reply = await deps.surfaces.onElicitation({ kind: ref.op, id: ref.id, platform: DISCORD, userId });
    await refuse(interaction, 'text' in reply ? reply.text : 'Done.');
    return true;
  }

  /** A submitted part of a question's form; false when the modal is not one. */
  async function onModal(interaction: ModalSubmitInteraction): Promise<boolean> {
    if (!interaction.customId.startsWith(FORM_PREFIX)) return false;
    const [elicitationId = '', pageText = '0'] = interaction.customId.slice(FORM_PREFIX.length).split(':');
    const form = await formFor(interaction, elicitationId);
    if (!form) return true;
    const page = Number(pageText);
    const k = key(form.id, interaction.user.id);
    if (drafts.size >= KEEP_DRAFTS && !drafts.has(k)) drafts.delete(drafts.keys().next().value!);
    const draft = { ...drafts.get(k) };
    form.fields.slice(page * PER_MODAL, page * PER_MODAL + PER_MODAL).forEach((field, i) => {
      try {
        draft[field.name] = interaction.fields.getTextInputValue(`f${page * PER_MODAL + i}`);
      } catch {
        // not in this part
      }
    });
    drafts.set(k, draft);
    const pages = Math.ceil(form.fields.length / PER_MODAL);
    if (page + 1 < pages) {
      const components = toActionRows([
        { actionId: `${PAGE_PREFIX}${form.id}:${page + 1}`, label: 'Continue', style: 'primary' },
      ]);
      await interaction.reply({
        content: `Part ${page + 1} of ${pages} kept. Continue with the next part.`,
        components,
        flags: MessageFlags.Ephemeral,
      });
      return true;
    }
    await submit(interaction, form, draft);
    return true;
  }

  return {
    onButton: (interaction: ButtonInteraction) =>
      onButton(interaction).catch(async (err: unknown) => {
        deps.logger.error({ err }, 'handling a question button failed');
        if (!interaction.replied)
          await refuse(interaction, 'Sorry, that failed. The error was logged; try again in a moment.').catch(() => {});
        return true;
      }),
    onModal: (interaction: ModalSubmitInteraction) =>
      onModal(interaction).catch(async (err: unknown) => {
        deps.logger.error({ err }, 'handling a question form failed');
        if (!interaction.replied)
          await refuse(interaction, 'Sorry, that failed. The error was logged; try again in a moment.').catch(() => {});
        return true;
      }),
  };
}

export type DiscordElicitations = ReturnType<typeof createDiscordElicitations>;
