import { describe, expect, it } from 'vitest';
import { createHistoryTools } from '../../src/agent/tools/history-tools.js';
import { createToolRegistry } from '../../src/agent/tools/tool-registry.js';
import type { ToolContext } from '../../src/agent/tools/tool.js';
import type { ChatAdapter } from '../../src/chat/chat-adapter.js';
import type {
  ConversationHistory,
  ReadChannelOptions,
  ReadThreadOptions,
} from '../../src/chat/conversation-history.js';
import { AdapterError } from '../../src/errors.js';
import { MemoryAdapter } from '../fakes/memory-adapter.js';

const conversation = { platform: 'memory', workspace: 'W1', channel: 'C1', thread: 'T1' };
const context: ToolContext = {
  conversationId: 'memory:W1:C1:T1',
  conversation,
  runId: 'r1',
  taskId: null,
  userId: 'U1',
  timezone: 'UTC',
  now: () => 0,
};
const call = (name: string, args: unknown) => ({ id: 'call_1', name, arguments: JSON.stringify(args) });

/** The in-memory platform with its history replaced (undefined: a platform that keeps none). */
function platformWith(history: ConversationHistory | undefined): ChatAdapter {
  const adapter = new MemoryAdapter();
  return Object.assign(Object.create(adapter) as ChatAdapter, { capabilities: history ? { history } : {} });
}

describe('history tools', () => {
  it('read the calling conversation with the default limits, and since as a time', async () => {
    const asked: unknown[] = [];
    const history: ConversationHistory = {
      readThread: async (c, o: ReadThreadOptions) => (asked.push(['thread', c, o]), { messages: [], truncated: false }),
      readChannel: async (c, o: ReadChannelOptions) => (
        asked.push(['channel', c, o]),
        { messages: [], truncated: false }
      ),
    };
    const tools = createToolRegistry(createHistoryTools(() => platformWith(history)));
    await tools.execute(call('read_thread', {}), context);
    await tools.execute(call('read_channel', { since: '2025-01-31T09:00:00+01:00' }), context);
    expect(asked).toEqual([
      ['thread', conversation, { limit: 100 }],
      ['channel', conversation, { limit: 50, since: Date.parse('2025-01-31T08:00:00Z') }],
    ]);
  });

  it('refuse limits past the maximum and a since that is not an ISO time, saying what is allowed', async () => {
    const tools = createToolRegistry(createHistoryTools(() => new MemoryAdapter()));
    const tooMany = await tools.execute(call('read_thread', { limit: 501 }), context);
    const badSince = await tools.execute(call('read_channel', { since: 'yesterday' }), context);
    expect(tooMany.result).toMatchObject({ ok: false, error: expect.stringContaining('at most 500') });
    expect(badSince.result).toMatchObject({ ok: false, error: expect.stringContaining('ISO 8601') });
  });

  it('tell the model when the platform keeps no history it can read', async () => {
    const tools = createToolRegistry(createHistoryTools(() => platformWith(undefined)));
    const r = await tools.execute(call('read_thread', {}), context);
    expect(r.result).toMatchObject({ ok: false, error: expect.stringContaining('not possible on memory') });
  });

  it('turn a platform failure into an error result that says to try again', async () => {
    const failing: ConversationHistory = {
      readThread: async () => {
        throw new AdapterError('Slack conversations.replies failed (missing_scope)');
      },
      readChannel: async () => ({ messages: [], truncated: false }),
    };
    const r = await createToolRegistry(createHistoryTools(() => platformWith(failing))).execute(
      call('read_thread', {}),
      context,
    );
    expect(r.result).toEqual({
      ok: false,
      error:
        'Could not read this thread: Slack conversations.replies failed (missing_scope). Try again later, or with a smaller limit.',
    });
  });

  it("give compact messages: the bot's own and other bots' marked, reply counts, long texts cut", async () => {
    const history: ConversationHistory = {
      readThread: async () => ({ messages: [], truncated: false }),
      readChannel: async () => ({
        truncated: true,
        messages: [
          {
            id: '1',
            author: { id: 'U1', name: 'Alice', isBot: false, isSelf: false },
            time: '2025-01-01T00:00:00.000Z',
            text: 'hi',
            replyCount: 2,
          },
          {
            id: '2',
            author: { id: 'UBOT', name: 'Errand', isBot: true, isSelf: true },
            time: '2025-01-01T00:01:00.000Z',
            text: 'x'.repeat(5000),
            replyCount: 0,
          },
        ],
      }),
    };
    const r = await createToolRegistry(createHistoryTools(() => platformWith(history))).execute(
      call('read_channel', {}),
      context,
    );
    expect(r.result).toMatchObject({
      ok: true,
      count: 2,
      truncated: true,
      messages: [
        { author: 'Alice', time: '2025-01-01T00:00:00.000Z', text: 'hi', replies: 2 },
        { author: 'Errand', bot: true, self: true, text: expect.stringContaining('(cut, 5000 characters in all)') },
      ],
    });
    expect(JSON.stringify(r.result)).not.toContain('"replies":0');
  });

  it('read through the in-memory platform what people said, also without the bot answering', async () => {
    const adapter = new MemoryAdapter();
    await adapter.start({
      onMessage: async () => {},
      knowsConversation: async () => false,
      onCommand: async () => ({ text: '' }),
      onAction: async () => null,
    });
    await adapter.say(conversation, 'first', { userId: 'U2' });
    await adapter.postMessage(conversation, { text: 'answer' });
    const r = await createToolRegistry(createHistoryTools(() => adapter)).execute(call('read_thread', {}), context);
    expect(r.result).toMatchObject({
      ok: true,
      messages: [
        { author: 'U2', text: 'first' },
        { author: 'Errand', text: 'answer', self: true },
      ],
    });
  });
});
