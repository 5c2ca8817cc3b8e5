import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatAdapter } from '../../src/chat/chat-adapter.js';
import { conversationRefSchema, type ChannelRef, type ConversationRef } from '../../src/chat/conversation-ref.js';
import type { CommandReply, InboundAction, InboundCommand, InboundMessage, InboundSink } from '../../src/chat/inbound.js';
import { waitFor } from '../fakes/wait-for.js';

/** An InboundSink that records what an adapter hands to the core. */
export class RecordingSink implements InboundSink {
  readonly messages: InboundMessage[] = [];
  readonly commands: InboundCommand[] = [];
  readonly actions: InboundAction[] = [];
  commandReply: CommandReply = { text: 'command reply' };
  /** Conversations `knowsConversation` answers true for (what the core would have stored). */
  readonly known: ConversationRef[] = [];

  async onMessage(message: InboundMessage): Promise<void> {
    this.messages.push(message);
  }

  async knowsConversation(conversation: ConversationRef): Promise<boolean> {
    return this.known.some((k) => k.platform === conversation.platform && k.workspace === conversation.workspace && k.channel === conversation.channel && k.thread === conversation.thread);
  }

  async onCommand(command: InboundCommand): Promise<CommandReply> {
    this.commands.push(command);
    return this.commandReply;
  }

  async onAction(action: InboundAction): Promise<CommandReply | null> {
    this.actions.push(action);
    return null;
  }
}

/** What a platform's test provides so the contract can drive its adapter. */
export interface ChatAdapterHarness {
  /** Started adapter wired to `sink`. */
  readonly adapter: ChatAdapter;
  readonly sink: RecordingSink;
  /** A channel where the bot can post and open threads. */
  readonly channel: ChannelRef;
  /** A person mentions the bot at the top level of `channel`; resolves once delivered (twins and all). */
  mentionBot(text: string): Promise<void>;
  /** The bot itself, and then another bot, post in `channel` (the platform echoes such posts). */
  postAsSelfAndOtherBot(text: string): Promise<void>;
  /** Texts the platform stored for a conversation, oldest first (what users see). */
  storedTexts(conversation: ConversationRef): Promise<string[]>;
  teardown(): Promise<void>;
}

/**
 * What every ChatAdapter must do, whatever the platform: one inbound message per post (a
 * platform's duplicate deliveries carry the same id), its own and other bots' posts ignored, long
 * text split within the limit with code fences intact, threads opened on messages, the working
 * status set and cleared. Each adapter's test calls this with its own harness.
 */
export function chatAdapterContract(name: string, makeHarness: () => Promise<ChatAdapterHarness>): void {
  describe(`${name} adapter contract`, () => {
    let h: ChatAdapterHarness;
    beforeAll(async () => {
      h = await makeHarness();
    });
    afterAll(async () => h.teardown());

    it('hands a mention to the core with a valid conversation ref, the mention stripped', async () => {
      const before = h.sink.messages.length;
      await h.mentionBot('please summarise the notes');
      await waitFor(() => h.sink.messages.length > before);
      const got = h.sink.messages.slice(before);
      expect(new Set(got.map((m) => m.messageId)).size).toBe(1);
      const m = got[0]!;
      expect(m.text.trim()).toBe('please summarise the notes');
      expect(conversationRefSchema.safeParse(m.conversation).success).toBe(true);
      expect(m.conversation.platform).toBe(h.adapter.platform);
      expect(m.conversation.channel).toBe(h.channel.channel);
    });

    it("ignores its own and other bots' posts", async () => {
      const before = h.sink.messages.length;
      await h.postAsSelfAndOtherBot('I am a bot');
      await new Promise((r) => setTimeout(r, 100));
      expect(h.sink.messages.slice(before)).toEqual([]);
    });

    it('splits long text within its limit, keeping code fences whole and the content in order', async () => {
      const thread = await h.adapter.openThread(h.channel, await firstMessageId(h), 'contract split');
      const limit = h.adapter.maxMessageLength;
      const code = Array.from({ length: Math.ceil((limit * 1.5) / 20) }, (_, i) => `line ${String(i).padStart(4, '0')} of code`).join('\n');
      const prose = Array.from({ length: Math.ceil(limit / 10) }, (_, i) => `word${i}`).join(' ');
      await h.adapter.postMessage(thread, { text: `${prose}\n\n\`\`\`ts\n${code}\n\`\`\`\n\nThe end.` });
      const stored = await h.storedTexts(thread);
      expect(stored.length).toBeGreaterThan(1);
      for (const piece of stored) {
        expect(piece.length).toBeLessThanOrEqual(limit);
        expect((piece.match(/```/g) ?? []).length % 2).toBe(0);
      }
      const joined = stored.join('\n');
      expect(joined.indexOf('word0')).toBeLessThan(joined.indexOf('line 0000'));
      expect(joined).toContain('The end.');
    });

    it('posts and edits; the working status can be set and cleared', async () => {
      const thread = await h.adapter.openThread(h.channel, await firstMessageId(h), 'contract edit');
      const posted = await h.adapter.postMessage(thread, { text: 'first version' });
      expect(posted.id).toBeTruthy();
      await h.adapter.editMessage(thread, posted.id, { text: 'second version' });
      await waitFor(async () => (await h.storedTexts(thread)).some((t) => t.includes('second version')));
      await h.adapter.setWorking(thread, { runId: 'r1', stopActionId: 'errand:stop:r1' });
      await h.adapter.setWorking(thread, null);
    });
  });
}

async function firstMessageId(h: ChatAdapterHarness): Promise<string> {
  if (h.sink.messages.length === 0) {
    await h.mentionBot('seed message');
    await waitFor(() => h.sink.messages.length > 0);
  }
  return h.sink.messages[0]!.messageId;
}
