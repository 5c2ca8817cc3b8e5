import { ChannelType, type Message } from 'discord.js';
import type { InboundMessage } from '../../src/chat/inbound.js';
import type { BotThreads } from './bot-threads.js';
import { toConversationRef } from './discord-thread-id.js';
import { memberRoleIds, rolesOf } from './member-roles.js';
import { toAttachments, type DiscordFileDownload } from './discord-attachments.js';

export interface MessageContext {
  readonly botId: string;
  /** DISCORD_THREADS: open a thread per mention in a channel. */
  readonly threads: boolean;
  readonly botThreads: BotThreads;
  /** Downloads an attachment; absent: attachments are not passed on. */
  readonly downloadFile?: DiscordFileDownload;
}

/** Channels where a thread can be started on a message. */
const THREADABLE = new Set<ChannelType>([ChannelType.GuildText, ChannelType.GuildAnnouncement]);

/**
 * Turns a Discord message into what the core understands, or null when the bot should stay
 * quiet: bot authors (itself included, so two bots never loop), channel messages without a
 * mention, and threads that are not the bot's. DMs always count. A mention in a channel
 * asks the runtime to open a thread on it (`startThread`) unless threads are turned off.
 */
export async function toInboundMessage(message: Message, ctx: MessageContext): Promise<InboundMessage | null> {
  if (message.author.bot || message.author.id === ctx.botId || message.system) return null;
  const channel = message.channel;
  const botRoleId = message.guild?.roles.botRoleFor(ctx.botId)?.id ?? null;
  const mentioned =
    message.mentions.users.has(ctx.botId) || (botRoleId !== null && message.mentions.roles.has(botRoleId));
  const text = stripMention(message.content, ctx.botId, botRoleId);
  const files =
    ctx.downloadFile && message.attachments.size > 0
      ? toAttachments(message.attachments.values(), ctx.downloadFile)
      : [];
  const base = {
    messageId: message.id,
    userId: message.author.id,
    userName: message.member?.displayName ?? message.author.globalName ?? message.author.username,
    text,
    ...rolesOf(memberRoleIds(message.member, message.guildId)),
    ...(files.length > 0 ? { attachments: files } : {}),
  };

  if (channel.type === ChannelType.DM) {
    const conversation = toConversationRef({ guildId: null, channelId: channel.id, threadId: null });
    return conversation ? { ...base, conversation, direct: true } : null;
  }
  if (message.guildId === null) return null;
  if (channel.isThread()) {
    if (channel.parentId === null) return null;
    if (mentioned) ctx.botThreads.mark(channel.id);
    else if (
      !(await ctx.botThreads.isBotThread({
        id: channel.id,
        ownerId: channel.ownerId,
        botIsCachedMember: channel.members.cache.has(ctx.botId),
      }))
    )
      return null;
    const conversation = toConversationRef({
      guildId: message.guildId,
      channelId: channel.parentId,
      threadId: channel.id,
    });
    return conversation ? { ...base, conversation } : null;
  }
  if (!mentioned) return null;
  const conversation = toConversationRef({ guildId: message.guildId, channelId: channel.id, threadId: null });
  if (!conversation) return null;
  if (ctx.threads && THREADABLE.has(channel.type))
    return { ...base, conversation, startThread: { name: threadName(text, base.userName) } };
  return { ...base, conversation };
}

/** Removes the bot's user and role mentions and tidies the whitespace they leave. */
export function stripMention(content: string, botId: string, botRoleId: string | null): string {
  let text = content.replace(new RegExp(`<@!?${botId}>`, 'g'), ' ');
  if (botRoleId) text = text.replace(new RegExp(`<@&${botRoleId}>`, 'g'), ' ');
  return text
    .replace(/[ \t]{2,}/g, ' ')
    .replace(/^[ \t]+|[ \t]+$/gm, '')
    .trim();
}

/** A thread name from the request: its first line, at most 100 characters, cut at a word. */
export function threadName(text: string, userName: string): string {
  const line = (text.split('\n').find((l) => l.trim() !== '') ?? '')
    .replace(/<@[!&]?\d+>|<#\d+>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (line === '') return `Request from ${userName}`.slice(0, 100);
  if (line.length <= 100) return line;
  const cut = line.slice(0, 99);
  const space = cut.lastIndexOf(' ');
  return `${space > 50 ? cut.slice(0, space) : cut}…`;
}
