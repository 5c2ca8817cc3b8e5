import { describe, expect, it } from 'vitest';
import {
  fromConversationRef,
  postTargetOf,
  toChannelRef,
  toConversationRef,
} from '../../adapters/discord/discord-thread-id.js';
import { conversationKey, parseConversationKey } from '../../src/chat/conversation-ref.js';
import { sharedWorkspaceOf } from '../../src/chat/workspace-of.js';

const GUILD = '81384788765712384';
const CHANNEL = '81384788765712390';
const THREAD = '1234567890123456789';
const DM = '998877665544332211';

describe('Discord conversation refs', () => {
  it('encode guild channels, threads and DMs as pinned keys and decode them back', () => {
    const cases = [
      [{ guildId: GUILD, channelId: CHANNEL, threadId: null }, `discord:${GUILD}:${CHANNEL}:-`],
      [{ guildId: GUILD, channelId: CHANNEL, threadId: THREAD }, `discord:${GUILD}:${CHANNEL}:${THREAD}`],
      [{ guildId: null, channelId: DM, threadId: null }, `discord:@me:${DM}:-`],
    ] as const;
    for (const [loc, key] of cases) {
      const ref = toConversationRef(loc);
      expect(ref && conversationKey(ref)).toBe(key);
      expect(fromConversationRef(parseConversationKey(key)!)).toEqual(loc);
    }
  });

  it('a DM belongs to no shared workspace (no server): only guild places have one', () => {
    expect(sharedWorkspaceOf(toChannelRef(null, DM)!)).toBeNull();
    expect(sharedWorkspaceOf(toChannelRef(GUILD, CHANNEL)!)).toBe(`discord:${GUILD}`);
  });

  it('post into the thread when there is one, else the channel', () => {
    expect(postTargetOf({ guildId: GUILD, channelId: CHANNEL, threadId: THREAD })).toBe(THREAD);
    expect(postTargetOf({ guildId: null, channelId: DM, threadId: null })).toBe(DM);
  });

  it('reject malformed ids and refs of other platforms', () => {
    expect(toConversationRef({ guildId: GUILD, channelId: 'general', threadId: null })).toBeNull();
    expect(toConversationRef({ guildId: 'T123', channelId: CHANNEL, threadId: null })).toBeNull();
    expect(toConversationRef({ guildId: GUILD, channelId: CHANNEL, threadId: '1700000000.000100' })).toBeNull();
    expect(toConversationRef({ guildId: null, channelId: DM, threadId: THREAD })).toBeNull();
    expect(fromConversationRef({ platform: 'slack', workspace: GUILD, channel: CHANNEL, thread: null })).toBeNull();
    expect(fromConversationRef({ platform: 'discord', workspace: 'W1', channel: CHANNEL, thread: null })).toBeNull();
    expect(fromConversationRef({ platform: 'discord', workspace: '@me', channel: DM, thread: THREAD })).toBeNull();
    expect(toChannelRef(GUILD, 'C1')).toBeNull();
    expect(toChannelRef(null, DM)).toEqual({ platform: 'discord', workspace: '@me', channel: DM });
  });
});
