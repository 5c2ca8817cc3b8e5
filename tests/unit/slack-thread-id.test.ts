import { describe, expect, it } from 'vitest';
import {
  conversationOfMessage,
  fromConversationRef,
  toChannelRef,
  toConversationRef,
} from '../../adapters/slack/slack-thread-id.js';
import { conversationKey } from '../../src/chat/conversation-ref.js';

const T = 'T012AB3C4';

describe('Slack conversation refs', () => {
  it('encode pinned keys for channel threads, DMs and DM threads', () => {
    expect(conversationKey(toConversationRef({ teamId: T, channelId: 'C0123', threadTs: '1700000000.000100' })!)).toBe(
      'slack:T012AB3C4:C0123:1700000000.000100',
    );
    expect(conversationKey(toConversationRef({ teamId: T, channelId: 'D0456', threadTs: null })!)).toBe(
      'slack:T012AB3C4:D0456:-',
    );
    expect(toChannelRef(T, 'G0789')).toEqual({ platform: 'slack', workspace: T, channel: 'G0789' });
  });

  it('reject malformed ids', () => {
    for (const bad of [
      { teamId: 'x', channelId: 'C0123', threadTs: null },
      { teamId: T, channelId: 'c0123', threadTs: null },
      { teamId: T, channelId: 'C0123:x', threadTs: null },
      { teamId: T, channelId: 'C0123', threadTs: '17000' },
      { teamId: T, channelId: 'C0123', threadTs: '1700000000.000100:1' },
    ]) {
      expect(toConversationRef(bad)).toBeNull();
    }
    expect(fromConversationRef({ platform: 'discord', workspace: T, channel: 'C0123', thread: null })).toBeNull();
    expect(
      fromConversationRef({ platform: 'slack', workspace: T, channel: 'C0123', thread: '1700000000.000100' }),
    ).toEqual({ teamId: T, channelId: 'C0123', threadTs: '1700000000.000100' });
  });

  it('map messages per DESIGN.md: a top-level channel message roots its thread; thread replies join it; DMs stay flat', () => {
    const ts = '1700000001.000200';
    const root = '1700000000.000100';
    expect(conversationOfMessage({ teamId: T, channelId: 'C0123', channelType: 'channel', ts })?.thread).toBe(ts);
    expect(
      conversationOfMessage({ teamId: T, channelId: 'C0123', channelType: 'channel', ts, threadTs: root })?.thread,
    ).toBe(root);
    expect(conversationOfMessage({ teamId: T, channelId: 'D0456', channelType: 'im', ts })?.thread).toBeNull();
    expect(conversationOfMessage({ teamId: T, channelId: 'D0456', ts, threadTs: root })?.thread).toBe(root);
  });
});
