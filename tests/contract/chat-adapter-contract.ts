import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerActionId, stopActionId } from '../../src/chat/action-id.js';
import { conversationRefSchema } from '../../src/chat/conversation-ref.js';
import { waitFor } from '../fakes/wait-for.js';
import { capabilityContract } from './capability-contract.js';
import { freshThread, mention, type ChatAdapterHarness, type ContractOptions } from './chat-adapter-harness.js';

export type { CapabilityName, ChatAdapterHarness, ContractOptions } from './chat-adapter-harness.js';
export { RecordingSink, RecordingSurfaces } from './recording-sinks.js';

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
      expect(h.surfaces !== undefined).toBe(options.surfaces !== undefined);
      expect(h.adapter.maxMessageLength).toBeGreaterThan(0);
      expect(typeof h.adapter.privateNotices).toBe('boolean');
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
      expect(h.sink.messages.at(-1)!.conversation).toEqual(h.onlyConversation ?? thread);
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
      expect(h.sink.actions.at(-1)).toMatchObject({ conversation: h.onlyConversation ?? thread });
    });

    if (options.stopButtons) {
      it('hands a click on a Stop button to the core as a stop of that run', async () => {
        const thread = await freshThread(h, 'contract stop click');
        const buttons = [{ actionId: stopActionId('r77'), label: 'Stop', style: 'danger' as const }];
        const posted = await h.adapter.postMessage(thread, { text: 'Working on it.', buttons });
        const before = h.sink.actions.length;
        await h.click(thread, posted.id, buttons, 0);
        await waitFor(() => h.sink.actions.length > before);
        expect(h.sink.actions.slice(before)).toEqual([expect.objectContaining({ kind: 'stop', runId: 'r77', userId: h.person, conversation: thread })]);
      });
    }

    capabilityContract(() => h, options);
  });
}
