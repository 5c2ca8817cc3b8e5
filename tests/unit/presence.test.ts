import { describe, expect, it } from 'vitest';
import type { AdapterCapabilities, AnswerStream } from '../../src/chat/chat-adapter.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import { presenceOver } from '../../src/chat/presence-over-adapters.js';
import { threadOpenerOver } from '../../src/outbox/thread-opener.js';
import { unrecordedNoticesOver } from '../../src/outbox/unrecorded-notice.js';
import { AdapterError } from '../../src/errors.js';
import { MemoryAdapter } from '../fakes/memory-adapter.js';

const on = (platform: string): ConversationRef => ({ platform, workspace: 'W1', channel: 'C1', thread: 't1' });
const hooks = { beforeMessage: async () => ({ key: null, posted: async () => undefined }) };

/** The memory adapter with a live preview, as Slack and Discord have (the memory adapter itself has none). */
class StreamingAdapter extends MemoryAdapter {
  opened: { conversation: string; recipient: string | null }[] = [];
  override readonly capabilities: AdapterCapabilities = {
    stream: {
      open: (conversation: ConversationRef, recipientUserId: string | null): AnswerStream => {
        this.opened.push({ conversation: conversation.channel, recipient: recipientUserId });
        return { append: () => undefined, finish: async () => [], stop: async () => undefined };
      },
    },
  };
}

describe('the presence port over the adapters', () => {
  it("shows and clears status on the conversation's own platform, and nowhere when none is connected", async () => {
    const memory = new MemoryAdapter();
    const other = new MemoryAdapter('W1', 'other');
    const presence = presenceOver(
      new Map([
        ['memory', memory],
        ['other', other],
      ]),
    );
    await presence.setWorking(on('other'), { runId: 'r1', stopActionId: 'stop:r1' });
    await presence.setWorking(on('other'), null);
    await presence.setWorking(on('gone'), { runId: 'r2', stopActionId: 'stop:r2' });
    expect(memory.workingLog).toEqual([]);
    expect(other.workingLog.map((w) => w.status?.runId ?? null)).toEqual(['r1', null]);
  });

  it('opens a live preview only where the platform streams; elsewhere says so and opens none', () => {
    const streaming = new StreamingAdapter('W1', 'streams');
    const presence = presenceOver(
      new Map([
        ['memory', new MemoryAdapter()],
        ['streams', streaming],
      ]),
    );
    expect(presence.canStream(on('memory'))).toBe(false);
    expect(presence.openStream(on('memory'), 'U1', hooks)).toBeNull();
    expect(presence.canStream(on('streams'))).toBe(true);
    expect(presence.openStream(on('streams'), 'U1', hooks)).not.toBeNull();
    expect(streaming.opened).toEqual([{ conversation: 'C1', recipient: 'U1' }]);
  });
});

describe('the unrecorded notices over the adapters', () => {
  it("tells one person privately on the conversation's platform, and nobody where none is connected", async () => {
    const memory = new MemoryAdapter();
    const notices = unrecordedNoticesOver(new Map([['memory', memory]]));
    await notices.tellPrivately(on('memory'), 'U9', 'Not here, sorry.');
    await notices.tellPrivately(on('gone'), 'U9', 'Nowhere.');
    expect(memory.ephemerals).toEqual([{ conversation: 'memory:W1:C1:t1', userId: 'U9', text: 'Not here, sorry.' }]);
  });
});

describe('the thread opener over the adapters', () => {
  it("opens the thread on the channel's platform, and refuses a platform that is not connected", async () => {
    const opener = threadOpenerOver(new Map([['memory', new MemoryAdapter()]]));
    const channel = { platform: 'memory', workspace: 'W1', channel: 'C1' };
    expect(await opener.openThread(channel, 'm1', 'A title')).toMatchObject({ platform: 'memory', channel: 'C1' });
    await expect(opener.openThread({ ...channel, platform: 'gone' }, 'm1', 'A title')).rejects.toBeInstanceOf(
      AdapterError,
    );
  });
});
