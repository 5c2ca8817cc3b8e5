import { ComponentType, MessageFlags, type ButtonInteraction, type ChatInputCommandInteraction, type Interaction } from 'discord.js';
import { z } from 'zod';
import { memberRoleIds, rolesOf } from './member-roles.js';
import { parseActionId } from '../../src/chat/action-id.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import type { CommandReply, InboundSink } from '../../src/chat/inbound.js';
import { splitText } from '../../src/chat/split-text.js';
import type { Logger } from '../../src/logger.js';
import { toChannelRef, toConversationRef } from './discord-thread-id.js';
import { commandFromInteraction } from './slash-commands.js';

/** Discord drops an interaction not acknowledged within 3 s; defer well before that. */
export const DEFER_AFTER_MS = 1500;

export interface InteractionContext {
  readonly sink: InboundSink;
  readonly logger: Logger;
  readonly deferAfterMs?: number;
  /** Called for a thread the bot is used in, so later messages there need no mention. */
  readonly markThread: (threadId: string) => void;
}

const SORRY: CommandReply = { text: 'Sorry, that failed. The error was logged; try again in a moment.' };

/** Where an interaction happened: the thread it was used in, else the channel (or DM). */
function whereOf(interaction: Interaction): { conversation: ConversationRef; channelConversation: ConversationRef } | null {
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
  const slow = new Promise<'slow'>((resolve) => (timer = setTimeout(() => resolve('slow'), ctx.deferAfterMs ?? DEFER_AFTER_MS)));
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
  const [head = '…', ...rest] = splitText(reply.text.trim() === '' ? '…' : reply.text, 2000);
  const allowedMentions = { parse: [] };
  if (deferred && interaction.isChatInputCommand()) await interaction.editReply({ content: head, allowedMentions });
  else if (deferred) await interaction.followUp({ content: head, flags: MessageFlags.Ephemeral, allowedMentions });
  else await interaction.reply({ content: head, flags: MessageFlags.Ephemeral, allowedMentions });
  for (const piece of rest) await interaction.followUp({ content: piece, flags: MessageFlags.Ephemeral, allowedMentions });
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

async function handleButton(interaction: ButtonInteraction, ctx: InteractionContext): Promise<void> {
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
    const work = ctx.sink.onAction({ kind: 'stop', runId: ref.runId, userId, conversation, ...roles, ...(interaction.guildId === null ? { direct: true } : {}) });
    await answerInTime(interaction, work, ctx, (deferred) => (deferred ? Promise.resolve() : interaction.deferUpdate()));
    return;
  }
  const answer = buttonLabel(interaction.component);
  const work = ctx.sink.onAction({ kind: 'answer', runId: ref.runId, answer, userId, conversation, eventId: interaction.id, ...roles, ...(interaction.guildId === null ? { direct: true } : {}) });
  const chosen = `${interaction.message.content}\n\n✅ <@${userId}> chose **${answer}**`;
  const edit = { content: chosen.length <= 2000 ? chosen : interaction.message.content, components: [], allowedMentions: { parse: [] } };
  await answerInTime(interaction, work, ctx, (deferred) => (deferred ? interaction.editReply(edit) : interaction.update(edit)));
}

/** The clicked button's label: the answer text of a question's option. */
function buttonLabel(component: ButtonInteraction['component']): string {
  const data: unknown = 'toJSON' in component ? component.toJSON() : component;
  const parsed = z.object({ type: z.literal(ComponentType.Button), label: z.string() }).safeParse(data);
  return parsed.success ? parsed.data.label : '';
}

/** Routes slash commands and Errand's buttons to the sink; every reply is ephemeral. */
export async function handleInteraction(interaction: Interaction, ctx: InteractionContext): Promise<void> {
  if (interaction.isChatInputCommand()) return handleCommand(interaction, ctx);
  if (interaction.isButton()) return handleButton(interaction, ctx);
}
