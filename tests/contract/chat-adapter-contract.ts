import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterCapabilities } from '../../src/chat/adapter-capabilities.js';
import { answerActionId, stopActionId } from '../../src/chat/action-id.js';
import type { ChatAdapter } from '../../src/chat/chat-adapter.js';
import { conversationRefSchema, type ChannelRef, type ConversationRef } from '../../src/chat/conversation-ref.js';
import type { CommandName, CommandReply, InboundAction, InboundCommand, InboundMessage, InboundSink } from '../../src/chat/inbound.js';
import type { OutboundButton } from '../../src/chat/outbound-button.js';
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

/** The capabilities an adapter may declare; its test names the ones it declares, and the suite drives each. */
export type CapabilityName = keyof AdapterCapabilities;

/** What a platform's test provides so the contract can drive its adapter through the platform (or its fake). */
export interface ChatAdapterHarness {
  /** Started adapter wired to `sink`. */
  readonly adapter: ChatAdapter;
  readonly sink: RecordingSink;
  /** A channel where the bot can post and open threads. */
  readonly channel: ChannelRef;
  /** The person the drivers act as, by the user id the adapter reports. */
  readonly person: string;
  /** The person's timezone as the platform knows it (checked where the adapter declares `timezone`). */
  readonly personTimezone?: string;
  /** A person mentions the bot at the top level of `channel`; resolves once delivered (twins and all). */
  mentionBot(text: string): Promise<void>;
  /** The person writes in a conversation the bot takes part in, without a mention; resolves once delivered. */
  personSays(conversation: ConversationRef, text: string): Promise<void>;
  /** The platform delivers the person's last message again, as it does when it thinks an event was lost; null where it never does (a terminal). */
  readonly redeliverLast: (() => Promise<void>) | null;
  /**
   * The bot itself posts `text` in `conversation` (through the adapter), then another bot does; resolves once
   * the platform has delivered both posts back to the adapter, with how many such deliveries it made.
   */
  postAsSelfAndOtherBot(conversation: ConversationRef, text: string): Promise<number>;
  /** The person runs `/<name> <args>` in `channel`; resolves with the reply the person is shown. */
  runCommand(name: CommandName, args: string): Promise<string>;
  /** The person clicks `buttons[index]` on the bot's message `messageId` in `conversation`. */
  click(conversation: ConversationRef, messageId: string, buttons: readonly OutboundButton[], index: number): Promise<void>;
  /** The bot's texts the platform holds for a conversation, oldest first (what people see). */
  storedTexts(conversation: ConversationRef): Promise<string[]>;
  /** Notices shown only to `userId` in a conversation (or what the platform shows instead). */
  noticesTo(userId: string, conversation: ConversationRef): Promise<string[]>;
  /** Whether the platform shows the bot at work in a conversation right now (a notice with Stop, a working line). */
  workingShown(conversation: ConversationRef): Promise<boolean>;
  teardown(): Promise<void>;
}

export interface ContractOptions {
  /** Exactly the capabilities the adapter declares: the suite fails when they differ, and drives each. */
  readonly capabilities: readonly CapabilityName[];
  /** Its history also reads what was said while Errand was down (`readAfter`): the suite fails when that differs. */
  readonly readAfter?: boolean;
}

/**
 * What every ChatAdapter must do, whatever the platform, driven through the platform's fake: one inbound
 * message per post under one id (redeliveries included), its own and other bots' posts (which the platform
 * delivers back) dropped, long text split within the limit with code fences intact, threads opened on
 * messages, the working indicator shown and taken down, notices, commands, button clicks, and every
 * capability it declares. Each adapter's test calls this with its own harness.
 */
export function chatAdapterContract(name: string, makeHarness: () => Promise<ChatAdapterHarness>, options: ContractOptions): void {
  describe(`${name} adapter contract`, () => {
    let h: ChatAdapterHarness;
    beforeAll(async () => {
      h = await makeHarness();
    });
    afterAll(async () => h.teardown());

    it('is connected once started, and declares exactly the capabilities its test drives', () => {
      expect(h.adapter.connectionState().connected).toBe(true);
      expect(Object.keys(h.adapter.capabilities).sort()).toEqual([...options.capabilities].sort());
      expect(typeof h.adapter.capabilities.history?.readAfter === 'function').toBe(options.readAfter === true);
      expect(h.adapter.maxMessageLength).toBeGreaterThan(0);
    });

    it('hands a mention to the core with a valid conversation ref, the mention stripped', async () => {
      const before = h.sink.messages.length;
      await h.mentionBot('please summarise the notes');
      await waitFor(() => h.sink.messages.length > before);
      const got = h.sink.messages.slice(before);
      expect(new Set(got.map((m) => m.messageId)).size).toBe(1);
      const m = got[0]!;
      expect(m.text.trim()).toBe('please summarise the notes');
      expect(m.userId).toBe(h.person);
      expect(conversationRefSchema.safeParse(m.conversation).success).toBe(true);
      expect(m.conversation.platform).toBe(h.adapter.platform);
      expect(m.conversation.channel).toBe(h.channel.channel);
    });

    it('hands a post the platform delivers again to the core under the same id; a new post with the same text gets a new id', async () => {
      const original = await mention(h, 'said twice 1201');
      if (h.redeliverLast) {
        const before = h.sink.messages.length;
        await h.redeliverLast();
        const sentinel = await mention(h, 'after the redelivery 1202');
        const redelivered = h.sink.messages.slice(before).filter((m) => m !== sentinel);
        expect(new Set(redelivered.map((m) => m.messageId))).toEqual(new Set(redelivered.length ? [original.messageId] : []));
      }
      const again = await mention(h, 'said twice 1201');
      expect(again.messageId).not.toBe(original.messageId);
    });

    it("drops its own and other bots' posts, which the platform delivers back to it", async () => {
      const thread = await freshThread(h, 'contract echo');
      const before = h.sink.messages.length;
      const delivered = await h.postAsSelfAndOtherBot(thread, 'I am a bot 6001');
      expect(delivered).toBeGreaterThanOrEqual(2);
      await h.personSays(thread, 'a person after the bots 6002');
      await waitFor(() => h.sink.messages.slice(before).some((m) => m.text.includes('6002')));
      expect(h.sink.messages.slice(before).map((m) => m.text)).toEqual([expect.stringContaining('6002')]);
    });

    it('opens a thread on a channel message in the same channel, and posts land in it', async () => {
      const thread = await freshThread(h, 'contract thread');
      expect(thread).toMatchObject({ platform: h.adapter.platform, workspace: h.channel.workspace, channel: h.channel.channel });
      expect(thread.thread).not.toBeNull();
      const posted = await h.adapter.postMessage(thread, { text: 'in the thread 2201' });
      expect(posted.id).toBeTruthy();
      expect(await h.storedTexts(thread)).toContainEqual(expect.stringContaining('in the thread 2201'));
    });

    it('splits long text within its limit, keeping code fences whole and the content in order', async () => {
      const thread = await freshThread(h, 'contract split');
      const limit = h.adapter.maxMessageLength;
      const code = Array.from({ length: Math.ceil((limit * 1.5) / 20) }, (_, i) => `line ${String(i).padStart(4, '0')} of code`).join('\n');
      const prose = Array.from({ length: Math.ceil(limit / 10) }, (_, i) => `word${i}`).join(' ');
      await h.adapter.postMessage(thread, { text: `${prose}\n\n\`\`\`ts\n${code}\n\`\`\`\n\nThe end.` });
      const stored = (await h.storedTexts(thread)).filter((t) => t.includes('word') || t.includes('line ') || t.includes('The end.'));
      expect(stored.length).toBeGreaterThan(1);
      for (const piece of stored) {
        expect(piece.length).toBeLessThanOrEqual(limit);
        expect((piece.match(/```/g) ?? []).length % 2).toBe(0);
      }
      const joined = stored.join('\n');
      expect(joined.indexOf('word0')).toBeLessThan(joined.indexOf('line 0000'));
      expect(joined).toContain('The end.');
    });

    it('edits a posted message in place', async () => {
      const thread = await freshThread(h, 'contract edit');
      const posted = await h.adapter.postMessage(thread, { text: 'first version 3001' });
      await h.adapter.editMessage(thread, posted.id, { text: 'second version 3001' });
      await waitFor(async () => (await h.storedTexts(thread)).some((t) => t.includes('second version 3001')));
    });

    it('shows the working indicator while a run works and takes it down when cleared', async () => {
      const thread = await freshThread(h, 'contract working');
      const source = h.sink.messages.at(-1)!.messageId;
      expect(await h.workingShown(thread)).toBe(false);
      await h.adapter.setWorking(thread, { runId: 'r9', sourceMessageId: source, stopActionId: stopActionId('r9') });
      await waitFor(() => h.workingShown(thread), 5000, 'the working indicator');
      await h.adapter.setWorking(thread, null);
      await waitFor(async () => !(await h.workingShown(thread)), 5000, 'the working indicator to go');
    });

    it('shows a notice to one person', async () => {
      const thread = await freshThread(h, 'contract notice');
      await h.adapter.postEphemeral(thread, h.person, 'only for you 5150');
      await waitFor(async () => (await h.noticesTo(h.person, thread)).some((t) => t.includes('only for you 5150')));
    });

    it('hands a slash command to the core and shows its reply to the person', async () => {
      h.sink.commandReply = { text: 'reply to the command 7001' };
      const shown = await h.runCommand('stop', 'all');
      expect(shown).toContain('reply to the command 7001');
      expect(h.sink.commands.at(-1)).toMatchObject({ name: 'stop', args: 'all', userId: h.person, channel: h.channel });
    });

    it('hands a click on an answer button to the core as the answer it stands for', async () => {
      const thread = await freshThread(h, 'contract click');
      const buttons = [
        { actionId: answerActionId('r42', 'q7', 0), label: 'Yes' },
        { actionId: answerActionId('r42', 'q7', 1), label: 'No' },
      ];
      const posted = await h.adapter.postMessage(thread, { text: 'Shall I go on?', mentionUserId: h.person, buttons });
      const before = h.sink.actions.length;
      await h.click(thread, posted.id, buttons, 1);
      await waitFor(() => h.sink.actions.length > before);
      expect(h.sink.actions.slice(before)).toEqual([expect.objectContaining({ kind: 'answer', runId: 'r42', questionId: 'q7', answer: 'No', userId: h.person })]);
    });

    const declares = (c: CapabilityName) => options.capabilities.includes(c);

    if (declares('stream')) {
      it('stream: shows the answer as it is written, ending as exactly the final text, once', async () => {
        const thread = await freshThread(h, 'contract stream');
        const stream = h.adapter.capabilities.stream!.open(thread, h.person);
        stream.append('Streaming the answer 7731\n\n');
        stream.append('still going, done.');
        const ids = await stream.finish('Streaming the answer 7731\n\nstill going, done.', ['Streaming the answer 7731\n\nstill going, done.']);
        expect(ids).toHaveLength(1);
        const shown = (await h.storedTexts(thread)).filter((t) => t.includes('7731'));
        expect(shown).toHaveLength(1);
        expect(shown[0]).toContain('still going, done.');
      });

      it('stream: a stopped preview keeps what it showed with a stopped mark, and is not edited afterwards', async () => {
        const thread = await freshThread(h, 'contract stream stop');
        const stream = h.adapter.capabilities.stream!.open(thread, h.person);
        stream.append('partial answer 5512\n\n');
        await waitFor(async () => (await h.storedTexts(thread)).some((t) => t.includes('partial answer 5512')));
        await stream.stop();
        stream.append('never shown 5513');
        expect(await stream.finish('never shown 5513', ['never shown 5513'])).toEqual([]);
        const shown = (await h.storedTexts(thread)).filter((t) => t.includes('5512'));
        expect(shown).toHaveLength(1);
        expect(shown[0]).toMatch(/stopped/i);
        expect((await h.storedTexts(thread)).join('\n')).not.toContain('5513');
      });
    }

    if (declares('delete')) {
      it('delete: removes its own message, and says so again when it is already gone', async () => {
        const thread = await freshThread(h, 'contract delete');
        const posted = await h.adapter.postMessage(thread, { text: 'to be deleted 4410' });
        await waitFor(async () => (await h.storedTexts(thread)).some((t) => t.includes('4410')));
        expect(await h.adapter.capabilities.delete!.deleteMessage(thread, posted.id)).toBe(true);
        await waitFor(async () => !(await h.storedTexts(thread)).some((t) => t.includes('4410')));
        expect(await h.adapter.capabilities.delete!.deleteMessage(thread, posted.id)).toBe(true);
      });
    }

    if (declares('postedLookup')) {
      it('postedLookup: finds a post by the idempotency key it carried, and only that one', async () => {
        const thread = await freshThread(h, 'contract lookup');
        const posted = await h.adapter.postMessage(thread, { text: 'keyed post 8801', idempotencyKey: 'e880001' });
        const found = await h.adapter.capabilities.postedLookup!.findPosted(thread, ['e880001', 'e880002']);
        expect([...found]).toEqual([['e880001', posted.id]]);
      });
    }

    if (declares('previewLookup')) {
      it('previewLookup: finds the preview message whose post never got its answer to Errand', async () => {
        const thread = await freshThread(h, 'contract preview lookup');
        const since = Date.now() - 2000;
        let postedId: string | null = null;
        const stream = h.adapter.capabilities.stream!.open(thread, h.person, {
          beforeMessage: async () => ({ key: 'e990001', posted: async (id) => void (postedId = id) }),
        });
        stream.append('preview 6620\n\n');
        await waitFor(() => postedId !== null, 5000, 'the preview to be posted');
        const probe = { key: 'e990001', since, until: null, known: new Set<string>(), text: 'preview 6620' };
        expect(await h.adapter.capabilities.previewLookup!.findUnrecordedPreview(thread, probe)).toBe(postedId);
        await stream.stop('discard');
      });
    }

    if (declares('history')) {
      it('history: reads the thread (people and itself told apart, oldest first) and its channel', async () => {
        const history = h.adapter.capabilities.history!;
        const thread = await freshThread(h, 'history root 3301');
        await h.personSays(thread, 'a person in the thread 3302');
        await h.adapter.postMessage(thread, { text: 'the bot in the thread 3303' });
        const page = (await waitFor(async () => {
          const p = await history.readThread(thread, { limit: 100 });
          return p.messages.some((m) => m.text.includes('3303')) ? p : null;
        }))!;
        const person = page.messages.findIndex((m) => m.text.includes('3302'));
        const bot = page.messages.findIndex((m) => m.text.includes('3303'));
        expect(person).toBeGreaterThanOrEqual(0);
        expect(person).toBeLessThan(bot);
        expect(page.messages[person]!.author).toMatchObject({ id: h.person, isBot: false, isSelf: false });
        expect(page.messages[bot]!.author).toMatchObject({ isBot: true, isSelf: true });
        for (const m of page.messages) expect(Number.isNaN(Date.parse(m.time))).toBe(false);
        const channel = await history.readChannel(thread, { limit: 100 });
        expect(channel.messages.some((m) => m.text.includes('history root 3301'))).toBe(true);
      });

      if (options.readAfter === true) {
        it('history: reads what was said after a message, as the live path would have handed it over', async () => {
          const history = h.adapter.capabilities.history!;
          const thread = await freshThread(h, 'contract catch-up');
          await h.personSays(thread, 'seen before 3401');
          const seen = (await waitFor(() => h.sink.messages.find((m) => m.text.includes('3401'))))!;
          await h.personSays(thread, 'missed while down 3402');
          await waitFor(() => h.sink.messages.some((m) => m.text.includes('3402')));
          const missed = await history.readAfter!(thread, { afterId: seen.messageId, limit: 50 });
          expect(missed.messages.map((m) => m.text)).toEqual([expect.stringContaining('missed while down 3402')]);
          expect(missed.messages[0]).toMatchObject({ addressedToBot: true, author: { id: h.person, isSelf: false } });
        });
      }
    }

    if (declares('timezone')) {
      it("timezone: tells the person's IANA timezone", async () => {
        expect(await h.adapter.capabilities.timezone!.fetchUserTimezone(h.person)).toBe(h.personTimezone);
      });
    }
  });
}

/** A person mentions the bot; resolves with what the core received. */
async function mention(h: ChatAdapterHarness, text: string): Promise<InboundMessage> {
  const before = h.sink.messages.length;
  await h.mentionBot(text);
  return (await waitFor(() => h.sink.messages.slice(before).find((m) => m.text.includes(text)), 5000, `the mention "${text}"`))!;
}

/** A new thread on a fresh mention, which the core then knows (as it would once it answered there). */
async function freshThread(h: ChatAdapterHarness, text: string): Promise<ConversationRef> {
  const root = await mention(h, text);
  const thread = await h.adapter.openThread(h.channel, root.messageId, text);
  h.sink.known.push(thread);
  return thread;
}
