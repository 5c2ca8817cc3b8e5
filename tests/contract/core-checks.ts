import { expect } from 'vitest';
import { answerActionId, stopActionId } from '../../src/chat/action-id.js';
import { conversationRefSchema, type ConversationRef } from '../../src/chat/conversation-ref.js';
import type { RunStep } from '../../src/chat/run-step.js';
import { waitFor } from '../fakes/wait-for.js';
import {
  freshThread,
  having,
  mention,
  type ChatAdapterHarness,
  type ContractCheck,
  type ContractOptions,
  type Patience,
} from './chat-adapter-harness.js';

/** The conversation at the top of a thread's channel. */
const topOf = (c: ConversationRef): ConversationRef => ({ ...c, thread: null });

/** A text's lines inside fenced code blocks and outside them (a line starting with ``` opens or closes a block). */
function fencedLines(text: string): { code: string[]; prose: string[] } {
  const code: string[] = [];
  const prose: string[] = [];
  let inside = false;
  for (const line of text.split('\n')) {
    if (line.trimStart().startsWith('```')) inside = !inside;
    else (inside ? code : prose).push(line.trim());
  }
  return { code, prose };
}

/** Whether any of these texts holds `marker`. */
const anyHas = (texts: readonly string[], marker: string) => texts.some((t) => t.includes(marker));

/**
 * The checks of the port's own members, what every ChatAdapter does whatever the platform: inbound messages
 * under one id each, its own and other bots' posts dropped, posts in threads, long text split, edits in place,
 * the working indicator and the run's steps, notices, commands, clicks, the thread fallback. `stop()` flushing
 * is `stopCheck`, run last (it ends the adapter).
 */
export function coreChecks(options: ContractOptions): ContractCheck[] {
  const checks: ContractCheck[] = [];
  const add = (id: string, title: string, run: ContractCheck['run']) => checks.push({ id, title, run });
  const single = options.singleScreen === true;

  add(
    'declares',
    'is connected once started, and declares exactly the capabilities (and the drivers) its test drives',
    async (h) => {
      expect(h.adapter.connectionState().connected).toBe(true);
      expect(Object.keys(h.adapter.capabilities).sort()).toEqual([...options.capabilities].sort());
      expect(typeof h.adapter.capabilities.history?.readAfter === 'function').toBe(options.readAfter === true);
      expect(h.surfaces !== undefined).toBe(options.surfaces !== undefined);
      expect(h.adapter.maxMessageLength).toBeGreaterThan(0);
      expect(typeof h.adapter.privateNotices).toBe('boolean');
      // Each option that leaves a test out is tied to what the harness can drive, so none is left out by mistake.
      expect(h.redeliverLast !== null, 'redelivers: the harness can redeliver').toBe(options.redelivers);
      expect(h.unthreadable !== undefined, 'threadFallback: the harness has a channel without threads').toBe(
        options.threadFallback,
      );
      expect(
        h.onlyConversation !== undefined && h.otherPerson === undefined,
        'singleScreen: one conversation, one person',
      ).toBe(single);
      expect(h.clickInCommandReply !== undefined).toBe(options.commandReplyButtons);
      expect(h.answerElicitation !== undefined && h.actOnElicitation !== undefined).toBe(
        options.surfaces?.elicitation === true,
      );
      expect(h.clickOnHome !== undefined).toBe(options.surfaces?.disconnect === true);
    },
  );

  add('mention', 'hands a mention to the core with a valid conversation ref, the mention stripped', async (h, t) => {
    const before = h.sink.messages.length;
    await h.mentionBot('please summarise the notes');
    await waitFor(() => h.sink.messages.length > before, t.wait, 'the mention');
    const got = h.sink.messages.slice(before);
    expect(new Set(got.map((m) => m.messageId)).size).toBe(1);
    const m = got[0]!;
    expect(m.text.trim(), 'the mention is stripped').toBe('please summarise the notes');
    expect(m.userId).toBe(h.person);
    expect(conversationRefSchema.safeParse(m.conversation).success).toBe(true);
    expect(m.conversation.platform).toBe(h.adapter.platform);
    expect(m.conversation.channel).toBe(h.channel.channel);
  });

  if (options.redelivers) {
    add(
      'redelivery',
      'hands a post the platform delivers again to the core under the same id (or not at all)',
      async (h, t) => {
        const original = await mention(h, 'said twice 1201');
        const before = h.sink.messages.length;
        await h.redeliverLast!();
        const sentinel = await mention(h, 'after the redelivery 1202');
        await waitFor(() => h.sink.messages.includes(sentinel), t.wait, 'the sentinel');
        const redelivered = h.sink.messages.slice(before).filter((m) => m !== sentinel);
        expect(
          new Set(redelivered.map((m) => m.messageId)),
          'a redelivery comes under the id of the post it repeats',
        ).toEqual(new Set(redelivered.length ? [original.messageId] : []));
      },
    );
  }

  add('new-id', 'hands a new post with the same text to the core under a new id', async (h) => {
    const first = await mention(h, 'said twice 1203');
    const again = await mention(h, 'said twice 1203');
    expect(again, 'the second post reached the core').not.toBe(first);
    expect(again.messageId, 'a new post has a new id').not.toBe(first.messageId);
  });

  add('bot-echo', "drops its own and other bots' posts, which the platform delivers back to it", async (h, t) => {
    const thread = await freshThread(h, 'contract echo');
    const before = h.sink.messages.length;
    const delivered = await h.postAsSelfAndOtherBot(thread, 'I am a bot 6001');
    expect(delivered).toBeGreaterThanOrEqual(2);
    await h.personSays(thread, 'a person after the bots 6002');
    await waitFor(
      () => h.sink.messages.slice(before).some((m) => m.text.includes('6002')),
      t.wait,
      'the person after the bots',
    );
    expect(h.sink.messages.slice(before).map((m) => m.text)).toEqual([expect.stringContaining('6002')]);
    expect(h.sink.messages.at(-1)!.conversation).toEqual(h.onlyConversation ?? thread);
  });

  add(
    'thread',
    'opens a thread on a channel message in the same channel, and posts land in it (only there)',
    async (h) => {
      const thread = await freshThread(h, 'contract thread');
      expect(thread, 'the thread is in the channel of its message').toMatchObject({
        platform: h.adapter.platform,
        workspace: h.channel.workspace,
        channel: h.channel.channel,
      });
      expect(thread.thread, 'a thread was opened').not.toBeNull();
      const posted = await h.adapter.postMessage(thread, { text: 'in the thread 2201' });
      expect(posted.id).toBeTruthy();
      expect(having(await h.storedTexts(thread), '2201'), 'the post is in the thread').toEqual(['in the thread 2201']);
      if (!single)
        expect(having(await h.storedTexts(topOf(thread)), '2201'), 'the post is not at the top of the channel').toEqual(
          [],
        );
    },
  );

  add(
    'split',
    'renders long text into pieces that each post as one message within its limit, code fences whole, in order',
    async (h) => {
      const thread = await freshThread(h, 'contract split');
      const limit = h.adapter.maxMessageLength;
      const code = Array.from(
        { length: Math.ceil((limit * 1.5) / 20) },
        (_, i) => `line ${String(i).padStart(4, '0')} of code`,
      ).join('\n');
      // Characters a dialect escapes or neutralises (&, <, @here): the adapter's own formatting is counted, not guessed.
      const prose = Array.from({ length: Math.ceil(limit / 10) }, (_, i) =>
        i % 3 === 0 ? `word${i} &<> @here` : `word${i}`,
      ).join(' ');
      const pieces = h.adapter.render(`${prose}\n\n\`\`\`ts\n${code}\n\`\`\`\n\nThe end.`, h.person);
      expect(pieces.length).toBeGreaterThan(1);
      for (const [i, piece] of pieces.entries())
        await h.adapter.postMessage(thread, { text: piece, ...(i === 0 ? { mentionUserId: h.person } : {}) });
      const stored = (await h.storedTexts(thread)).filter(
        (t) => t.includes('word') || t.includes('line ') || t.includes('The end.'),
      );
      expect(stored.length, 'each piece is one message: the post splits nothing again').toBe(pieces.length);
      for (const piece of stored) {
        expect(piece.length, 'each piece is within the limit').toBeLessThanOrEqual(limit);
        expect((piece.match(/```/g) ?? []).length % 2, 'each piece keeps its code fences whole').toBe(0);
        // A platform may close a fence left open at a piece's end: what counts is that code shows as code, prose as prose.
        const { code: inCode, prose: inProse } = fencedLines(piece);
        expect(
          inProse.filter((l) => /^line \d{4} of code$/.test(l)),
          'each piece keeps its code fences whole: no code line outside a fence',
        ).toEqual([]);
        expect(
          inCode.filter((l) => /word\d/.test(l)),
          'each piece keeps its code fences whole: no prose inside a fence',
        ).toEqual([]);
      }
      const joined = stored.join('\n');
      expect(joined.indexOf('word0')).toBeLessThan(joined.indexOf('line 0000'));
      expect(joined).toContain('The end.');
    },
  );

  add('one-message', 'refuses to post a text over its limit with a clear error, and posts none of it', async (h) => {
    const thread = await freshThread(h, 'contract one message');
    const limit = h.adapter.maxMessageLength;
    const text = `${Array.from({ length: Math.ceil(limit / 4) }, (_, i) => `over${i}`).join(' ')}`;
    const refused = await h.adapter.postMessage(thread, { text }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused, 'a text over the limit is refused').toBeInstanceOf(Error);
    expect((refused as Error).message, 'the error says the text is over the limit').toMatch(/over the limit/);
    expect(having(await h.storedTexts(thread), 'over0'), 'nothing of it is posted').toEqual([]);
  });

  add('edit', 'edits a posted message in place: the new text replaces it, and no message is added', async (h, t) => {
    const thread = await freshThread(h, 'contract edit');
    const posted = await h.adapter.postMessage(thread, { text: 'first version 3001' });
    await waitFor(async () => anyHas(await h.storedTexts(thread), 'first version 3001'), t.wait, 'the first version');
    await h.adapter.editMessage(thread, posted.id, { text: 'second version 3001' });
    await waitFor(async () => anyHas(await h.storedTexts(thread), 'second version 3001'), t.wait, 'the second version');
    const shown = having(await h.storedTexts(thread), '3001');
    if (!h.editsShown) {
      expect(shown, 'the edit replaced the message in place').toEqual(['second version 3001']);
    } else {
      // A terminal cannot take back what it printed: the edit is printed again, marked as an edit.
      expect(shown, 'the edit follows the message it edits').toEqual(['first version 3001', 'second version 3001']);
      expect(having(await h.editsShown(thread), '3001'), 'the edit is shown as an edit, not as a new post').toEqual([
        'second version 3001',
      ]);
    }
  });

  add(
    'working',
    'shows the working indicator where a run works (not elsewhere) and takes it down when cleared',
    async (h, t) => {
      const root = await mention(h, 'contract working');
      const thread = await h.adapter.openThread(h.channel, root.messageId, 'contract working');
      h.sink.known.push(thread);
      const other = single ? null : await freshThread(h, 'contract not working');
      expect(await h.workingShown(thread)).toBe(false);
      try {
        await h.adapter.setWorking(thread, {
          runId: 'r9',
          sourceMessageId: root.messageId,
          stopActionId: stopActionId('r9'),
        });
        const somewhere = async () =>
          (await h.workingShown(thread)) || (!single && (await h.workingShown(topOf(thread))));
        await waitFor(somewhere, t.wait, 'the working indicator');
        expect(await h.workingShown(thread), 'the indicator is shown in the conversation that works').toBe(true);
        if (other)
          expect(await h.workingShown(other), 'the indicator is not shown in another conversation').toBe(false);
        await h.adapter.setWorking(thread, null);
        await waitFor(async () => !(await h.workingShown(thread)), t.last, 'the working indicator to go');
      } finally {
        await h.adapter.setWorking(thread, null);
      }
    },
  );

  add('steps', "shows the run's steps as they change", async (h, t) => {
    const root = await mention(h, 'contract steps');
    const thread = await h.adapter.openThread(h.channel, root.messageId, 'contract steps');
    h.sink.known.push(thread);
    const reading: RunStep = { id: 'tc1', title: 'Reading the thread 5601', status: 'running' };
    const first = [reading];
    const second: RunStep[] = [
      { ...reading, status: 'done' },
      { id: 'tc2', title: 'Running linear__create_issue 5602', status: 'running' },
    ];
    const status = (steps: readonly RunStep[]) => ({
      runId: 'r56',
      sourceMessageId: root.messageId,
      stopActionId: stopActionId('r56'),
      activity: 'tool' as const,
      toolName: 'linear__create_issue',
      steps,
    });
    const ofRun = async () => (await h.stepsShown(thread)).filter((s) => /560\d/.test(s.title));
    if (options.steps === 'stream') {
      // Slack shows steps as task cards in the streamed answer, above its text.
      const stream = h.adapter.capabilities.stream!.open(thread, h.person);
      try {
        stream.showSteps!(first);
        stream.append('Working through it 5603\n\n');
        // The cards go with the stream's first call, the text after them: once the text shows, so do they.
        await waitFor(async () => anyHas(await h.storedTexts(thread), '5603'), t.wait, 'the streamed answer');
        expect(await ofRun(), 'the first step is shown running, in the streamed answer').toEqual([
          { title: 'Reading the thread 5601', status: 'running' },
        ]);
        stream.showSteps!(second);
        await waitFor(async () => (await ofRun()).length === 2 || null, t.wait, 'the second step');
        expect(await ofRun(), 'the steps are shown as last updated').toEqual([
          { title: 'Reading the thread 5601', status: 'done' },
          { title: 'Running linear__create_issue 5602', status: 'running' },
        ]);
      } finally {
        await stream.stop('done');
      }
      return;
    }
    try {
      await h.adapter.setWorking(thread, status(first));
      // The steps are shown with the indicator itself (its note, its status line): once it shows, so do they.
      await waitFor(() => h.workingShown(thread), t.wait, 'the working indicator');
      expect(await ofRun(), 'the first step is shown running, with the working indicator').toEqual([
        { title: 'Reading the thread 5601', status: 'running' },
      ]);
      await h.adapter.setWorking(thread, status(second));
      await waitFor(
        async () => (await ofRun()).some((s) => s.title.includes('5602')) || null,
        t.wait,
        'the second step',
      );
      expect(await ofRun(), 'the steps are shown as last updated').toEqual([
        { title: 'Reading the thread 5601', status: 'done' },
        { title: 'Running linear__create_issue 5602', status: 'running' },
      ]);
    } finally {
      await h.adapter.setWorking(thread, null);
    }
  });

  add(
    'notice',
    'shows a notice to one person: alone where notices are private, else as a post that notifies them alone',
    async (h, t) => {
      const thread = await freshThread(h, 'contract notice');
      await h.adapter.postEphemeral(thread, h.person, 'only for you 5150');
      const seen = async () =>
        anyHas(await h.noticesTo(h.person, thread), '5150') ||
        anyHas(await h.storedTexts(thread), '5150') ||
        (h.otherPerson !== undefined && anyHas(await h.noticesTo(h.otherPerson, thread), '5150')) ||
        (!single &&
          (anyHas(await h.noticesTo(h.person, topOf(thread)), '5150') ||
            anyHas(await h.storedTexts(topOf(thread)), '5150')));
      await waitFor(seen, t.wait, 'the notice anywhere');
      expect(
        having(await h.noticesTo(h.person, thread), '5150'),
        'the notice is shown to the person, in the conversation',
      ).toHaveLength(1);
      if (h.adapter.privateNotices)
        expect(having(await h.storedTexts(thread), '5150'), 'a private notice is not among the posts').toEqual([]);
      else
        expect(
          having(await h.storedTexts(thread), '5150'),
          'where notices are not private, the notice is a post',
        ).toHaveLength(1);
      if (h.otherPerson !== undefined)
        expect(
          having(await h.noticesTo(h.otherPerson, thread), '5150'),
          'the notice is not shown to someone else',
        ).toEqual([]);
    },
  );

  add('command', 'hands a slash command to the core and shows its reply to the person', async (h) => {
    h.sink.commandReply = { text: 'reply to the command 7001' };
    const shown = await h.runCommand('stop', 'all');
    expect(shown).toContain('reply to the command 7001');
    expect(h.sink.commands.at(-1), 'the command as the person typed it').toMatchObject({
      name: 'stop',
      args: 'all',
      userId: h.person,
      channel: h.channel,
    });
  });

  add('answer-click', 'hands a click on an answer button to the core as the answer it stands for', async (h, t) => {
    const thread = await freshThread(h, 'contract click');
    const buttons = [
      { actionId: answerActionId('r42', 'q7', 0), label: 'Yes' },
      { actionId: answerActionId('r42', 'q7', 1), label: 'No' },
    ];
    const posted = await h.adapter.postMessage(thread, { text: 'Shall I go on?', mentionUserId: h.person, buttons });
    const before = h.sink.actions.length;
    await h.click(thread, posted.id, buttons, 1);
    await waitFor(() => h.sink.actions.length > before, t.wait, 'the click');
    expect(h.sink.actions.slice(before), 'the click as the answer it stands for').toEqual([
      expect.objectContaining({ kind: 'answer', runId: 'r42', questionId: 'q7', answer: 'No', userId: h.person }),
    ]);
    expect(h.sink.actions.at(-1)).toMatchObject({ conversation: h.onlyConversation ?? thread });
  });

  if (options.stopButtons) {
    add('stop-click', 'hands a click on a Stop button to the core as a stop of that run', async (h, t) => {
      const thread = await freshThread(h, 'contract stop click');
      const buttons = [{ actionId: stopActionId('r77'), label: 'Stop', style: 'danger' as const }];
      const posted = await h.adapter.postMessage(thread, { text: 'Working on it.', buttons });
      const before = h.sink.actions.length;
      await h.click(thread, posted.id, buttons, 0);
      await waitFor(() => h.sink.actions.length > before, t.wait, 'the click');
      expect(h.sink.actions.slice(before), 'the click as a stop of the run where it was clicked').toEqual([
        expect.objectContaining({ kind: 'stop', runId: 'r77', userId: h.person, conversation: thread }),
      ]);
    });
  }

  if (options.threadFallback) {
    add(
      'thread-fallback',
      "opens no thread where none can be opened (a DM): returns the channel's conversation, where posts land",
      async (h) => {
        const { channel, messageId } = await h.unthreadable!();
        const conversation = await h.adapter.openThread(channel, messageId, 'no thread here 5701');
        expect(conversation, "the channel's own conversation").toEqual({ ...channel, thread: null });
        await h.adapter.postMessage(conversation, { text: 'in the channel itself 5702' });
        expect(having(await h.storedTexts(conversation), '5702'), 'a post there lands in the channel').toEqual([
          'in the channel itself 5702',
        ]);
      },
    );
  }

  return checks;
}

/**
 * `stop()`: posts still queued when it is called reach the platform before it resolves, in order. Run last:
 * it ends the adapter.
 */
export const stopCheck: ContractCheck = {
  id: 'stop',
  title: 'stop() flushes the posts still queued before it disconnects, and then says it is disconnected',
  async run(h: ChatAdapterHarness, _t: Patience) {
    const thread = await freshThread(h, 'contract stop');
    const texts = ['flushed first 8101', 'flushed second 8101', 'flushed third 8101'];
    const posts = texts.map((text) => h.adapter.postMessage(thread, { text }));
    for (const p of posts) p.catch(() => undefined);
    await h.adapter.stop();
    expect(
      having(await h.storedTexts(thread), '8101'),
      'every queued post reached the platform before stop() resolved',
    ).toEqual(texts);
    expect(h.adapter.connectionState().connected, '/healthz hears it is disconnected once stopped').toBe(false);
  },
};
