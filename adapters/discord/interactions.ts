import {
  ComponentType,
  MessageFlags,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Interaction,
  type ModalSubmitInteraction,
} from 'discord.js';
import { z } from 'zod';
import { memberRoleIds, rolesOf } from './member-roles.js';
import { parseActionId, parseMemoryForgetActionId, parseScheduleActionId } from '../../src/chat/action-id.js';
import { parsePrivateAnswerActionId } from '../../src/chat/private-answers.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import type { CommandReply, InboundSink } from '../../src/chat/inbound.js';
import { splitText } from '../../src/chat/split-text.js';
import type { SurfaceSink } from '../../src/chat/surface-sink.js';
import type { Logger } from '../../src/logger.js';
import { toChannelRef, toConversationRef } from './discord-thread-id.js';
import { toActionRows } from './message-bodies.js';
import type { ScheduleModals } from './schedule-modal.js';
import type { DiscordElicitations } from './elicitation-ui.js';
import { commandFromInteraction } from './slash-commands.js';

/** Discord drops an interaction not acknowledged within 3 s; defer well before that. */
export const DEFER_AFTER_MS = 1500;

export interface InteractionContext {
  readonly sink: InboundSink;
  /** Where schedule forms go; absent: a submitted form is refused as no longer active. */
  readonly surfaces?: SurfaceSink;
  readonly logger: Logger;
  readonly deferAfterMs?: number;
  /** Called for a thread the bot is used in, so later messages there need no mention. */
  readonly markThread: (threadId: string) => void;
  /** The schedule form as modals (`/schedules add`, Edit, reopening after errors). */
  readonly modals: ScheduleModals;
  /** MCP servers' questions (their buttons and forms); absent without surfaces. */
  readonly elicitations?: DiscordElicitations;
}

const SORRY: CommandReply = { text: 'Sorry, that failed. The error was logged; try again in a moment.' };

/** Where an interaction happened: the thread it was used in, else the channel (or DM). */
function whereOf(
  interaction: Interaction,
): { conversation: ConversationRef; channelConversation: ConversationRef } | null {
  const channel = interaction.channel;
  const guildId = interaction.guildId;
  if (channel?.isThread() && channel.parentId && guildId) {
    const conversation = toConversationRef({ guildId, channelId: channel.parentId, threadId: channel.id });
    const channelConversation = toConversationRef({ guildId, channelId: channel.parentId, threadId: null });
    return conversation && channelConversation ? { conversation, channelConversation } : null;
  }
  if (!interaction.channelId) return null;
  const conversation = toConversationRef({ guildId, channelId: interaction.channelId, threadId: null });
  return conversation ? { conversation, channelConversation: conversation } : null;
}

/** Runs `work`, deferring first when it is slow, so Discord always gets its answer in time. */
async function answerInTime(
  interaction: ChatInputCommandInteraction | ButtonInteraction,
  work: Promise<CommandReply | null>,
  ctx: InteractionContext,
  onQuiet: (deferred: boolean) => Promise<unknown>,
): Promise<void> {
  const guarded = work.catch((err: unknown) => {
    ctx.logger.error({ err }, 'handling a Discord interaction failed');
    return SORRY;
  });
  let timer: NodeJS.Timeout | undefined;
  const slow = new Promise<'slow'>(
    (resolve) => (timer = setTimeout(() => resolve('slow'), ctx.deferAfterMs ?? DEFER_AFTER_MS)),
  );
  const first = await Promise.race([guarded, slow]);
  clearTimeout(timer);
  let deferred = false;
  if (first === 'slow') {
    deferred = true;
    if (interaction.isButton()) await interaction.deferUpdate();
    else await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  }
  const reply = first === 'slow' ? await guarded : first;
  if (!reply) return void (await onQuiet(deferred));
  // A modal must be the first answer; once deferred, the text (with a way to open it) goes instead.
  if (reply.form && !deferred) return void (await interaction.showModal(ctx.modals.modal(reply.form)));
  const [head = '…', ...rest] = splitText(reply.text.trim() === '' ? '…' : reply.text, 2000);
  const allowedMentions = { parse: [] };
  const components = toActionRows(reply.buttons);
  if (deferred && interaction.isChatInputCommand())
    await interaction.editReply({ content: head, allowedMentions, components });
  else if (deferred)
    await interaction.followUp({ content: head, flags: MessageFlags.Ephemeral, allowedMentions, components });
  else await interaction.reply({ content: head, flags: MessageFlags.Ephemeral, allowedMentions, components });
  for (const piece of rest)
    await interaction.followUp({ content: piece, flags: MessageFlags.Ephemeral, allowedMentions });
}

async function handleCommand(interaction: ChatInputCommandInteraction, ctx: InteractionContext): Promise<void> {
  const command = commandFromInteraction(interaction);
  const where = whereOf(interaction);
  const channel = where ? toChannelRef(interaction.guildId, where.channelConversation.channel) : null;
  if (!command || !where || !channel) {
    await interaction.reply({ content: 'I do not know that command here. Try /help.', flags: MessageFlags.Ephemeral });
    return;
  }
  if (where.conversation.thread) ctx.markThread(where.conversation.thread);
  const work = ctx.sink.onCommand({
    ...command,
    channel,
    conversation: where.conversation,
    userId: interaction.user.id,
    ...rolesOf(memberRoleIds(interaction.member, interaction.guildId)),
    ...(interaction.guildId === null ? { direct: true } : {}),
  });
  await answerInTime(interaction, work, ctx, async () => undefined);
}

/** Schedule buttons (Pause, Resume, Delete, Edit, New) and the button that reopens a refused form. */
async function handleScheduleButton(interaction: ButtonInteraction, ctx: InteractionContext): Promise<boolean> {
  const kept = ctx.modals.reopened(interaction.customId);
  if (kept !== undefined) {
    if (kept) await interaction.showModal(ctx.modals.modal(kept));
    else
      await interaction.reply({
        content: 'This form has expired. Use `/schedules add` again.',
        flags: MessageFlags.Ephemeral,
      });
    return true;
  }
  const ref = parseScheduleActionId(interaction.customId);
  if (!ref) return false;
  const where = whereOf(interaction);
  const channel =
    where && interaction.guildId ? toChannelRef(interaction.guildId, where.channelConversation.channel) : null;
  if (!where || !interaction.guildId || !channel) {
    await interaction.reply({
      content: 'Schedules belong to a server channel: use this there.',
      flags: MessageFlags.Ephemeral,
    });
    return true;
  }
  const work = ctx.sink.onAction({
    kind: 'schedule',
    ...ref,
    platform: channel.platform,
    workspace: channel.workspace,
    userId: interaction.user.id,
    channel,
    memberOf: null,
    ...rolesOf(memberRoleIds(interaction.member, interaction.guildId)),
  });
  await answerInTime(interaction, work, ctx, (deferred) => (deferred ? Promise.resolve() : interaction.deferUpdate()));
  return true;
}

/** A submitted schedule modal: saved, or the errors (or the interpretation to confirm) with a button to reopen it. */
async function handleModalSubmit(interaction: ModalSubmitInteraction, ctx: InteractionContext): Promise<void> {
  const form = ctx.modals.formOf(interaction.customId);
  const surfaces = ctx.surfaces;
  if (!form || !interaction.guildId || !surfaces) {
    await interaction.reply({ content: 'This form is no longer active.', flags: MessageFlags.Ephemeral });
    return;
  }
  const field = (id: string) => {
    try {
      return interaction.fields.getTextInputValue(id);
    } catch {
      return '';
    }
  };
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const result = await surfaces
    .onScheduleForm({
      platform: 'discord',
      workspace: interaction.guildId,
      userId: interaction.user.id,
      ...rolesOf(memberRoleIds(interaction.member, interaction.guildId)),
      scheduleId: form.scheduleId,
      values: { channel: form.channel, prompt: field('prompt'), when: field('when'), timezone: field('timezone') },
      memberOf: null,
    })
    .catch((err: unknown) => {
      ctx.logger.error({ err }, 'handling a schedule form failed');
      return null;
    });
  if (!result) return void (await interaction.editReply({ content: SORRY.text }));
  const answer = ctx.modals.answer(result);
  const components = answer.reopenId
    ? toActionRows([{ actionId: answer.reopenId, label: answer.label, style: 'primary' }])
    : [];
  const [head = '…'] = splitText(answer.text || '…', 2000);
  await interaction.editReply({ content: head, components, allowedMentions: { parse: [] } });
}

/** A Forget button of `/memory`: the command `/memory forget <id>` from the clicker, where they clicked; answered ephemerally. */
async function handleForgetButton(interaction: ButtonInteraction, ctx: InteractionContext): Promise<boolean> {
  const memoryId = parseMemoryForgetActionId(interaction.customId);
  if (memoryId === null) return false;
  const where = whereOf(interaction);
  const channel = where ? toChannelRef(interaction.guildId, where.channelConversation.channel) : null;
  if (!where || !channel) {
    await interaction.reply({ content: 'This button is no longer active.', flags: MessageFlags.Ephemeral });
    return true;
  }
  const work = ctx.sink.onCommand({
    name: 'memory',
    args: `forget ${memoryId}`,
    channel,
    conversation: where.conversation,
    userId: interaction.user.id,
    ...rolesOf(memberRoleIds(interaction.member, interaction.guildId)),
    ...(interaction.guildId === null ? { direct: true } : {}),
  });
  await answerInTime(interaction, work, ctx, async () => undefined);
  return true;
}

/** Share in thread / Keep private on a held answer (in the owner's DM): decided by the core, answered ephemerally. */
async function handlePrivateAnswerButton(interaction: ButtonInteraction, ctx: InteractionContext): Promise<boolean> {
  const ref = parsePrivateAnswerActionId(interaction.customId);
  if (!ref) return false;
  const work = ctx.sink.onAction({ kind: 'private_answer', ...ref, platform: 'discord', userId: interaction.user.id });
  await answerInTime(interaction, work, ctx, async () => undefined);
  return true;
}

async function handleButton(interaction: ButtonInteraction, ctx: InteractionContext): Promise<void> {
  if (await handleScheduleButton(interaction, ctx)) return;
  if (await handlePrivateAnswerButton(interaction, ctx)) return;
  if (ctx.elicitations && (await ctx.elicitations.onButton(interaction))) return;
  if (await handleForgetButton(interaction, ctx)) return;
  const ref = parseActionId(interaction.customId);
  const where = whereOf(interaction);
  if (!ref || !where) {
    await interaction.reply({ content: 'This button is no longer active.', flags: MessageFlags.Ephemeral });
    return;
  }
  const userId = interaction.user.id;
  const roles = rolesOf(memberRoleIds(interaction.member, interaction.guildId));
  const conversation = where.conversation;
  if (ref.kind === 'stop') {
    const work = ctx.sink.onAction({
      kind: 'stop',
      runId: ref.runId,
      userId,
      conversation,
      ...roles,
      ...(interaction.guildId === null ? { direct: true } : {}),
    });
    await answerInTime(interaction, work, ctx, (deferred) =>
      deferred ? Promise.resolve() : interaction.deferUpdate(),
    );
    return;
  }
  const answer = buttonLabel(interaction.component);
  const work = ctx.sink.onAction({
    kind: 'answer',
    runId: ref.runId,
    questionId: ref.questionId,
    answer,
    userId,
    conversation,
    eventId: interaction.id,
    ...roles,
    ...(interaction.guildId === null ? { direct: true } : {}),
  });
  const chosen = `${interaction.message.content}\n\n✅ <@${userId}> chose **${answer}**`;
  const edit = {
    content: chosen.length <= 2000 ? chosen : interaction.message.content,
    components: [],
    allowedMentions: { parse: [] },
  };
  await answerInTime(interaction, work, ctx, (deferred) =>
    deferred ? interaction.editReply(edit) : interaction.update(edit),
  );
}

/** The clicked button's label: the answer text of a question's option. */
function buttonLabel(component: ButtonInteraction['component']): string {
  const data: unknown = 'toJSON' in component ? component.toJSON() : component;
  const parsed = z.object({ type: z.literal(ComponentType.Button), label: z.string() }).safeParse(data);
  return parsed.success ? parsed.data.label : '';
}

/** Routes slash commands, Errand's buttons and its schedule modal to the sink; every reply is ephemeral. */
export async function handleInteraction(interaction: Interaction, ctx: InteractionContext): Promise<void> {
  if (interaction.isChatInputCommand()) return handleCommand(interaction, ctx);
  if (interaction.isButton()) return handleButton(interaction, ctx);
  if (interaction.isModalSubmit()) {
    if (ctx.elicitations && (await ctx.elicitations.onModal(interaction))) return;
    return handleModalSubmit(interaction, ctx);
  }
}
