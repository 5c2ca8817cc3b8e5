import { expect } from 'vitest';
import { STOPPED_MARK } from '../../src/chat/edited-stream.js';
import { waitFor } from '../fakes/wait-for.js';
import {
  freshThread,
  having,
  type CapabilityName,
  type ContractCheck,
  type ContractOptions,
} from './chat-adapter-harness.js';

/**
 * The part of the adapter contract that drives each capability an adapter declares: one check per behaviour,
 * registered by chatAdapterContract (and run again against broken adapters).
 */
export function capabilityChecks(options: ContractOptions): ContractCheck[] {
  const checks: ContractCheck[] = [];
  const add = (id: string, title: string, run: ContractCheck['run']) => checks.push({ id, title, run });
  const declares = (c: CapabilityName) => options.capabilities.includes(c);

  if (declares('memberRoles')) {
    add(
      'memberRoles',
      'memberRoles: reads a person’s roles as they are at the moment of asking, and none for someone not a member',
      async (h) => {
        const lookup = h.adapter.capabilities.memberRoles!;
        const roles = await h.setPersonRoles!(['contract-role']);
        expect([...(await lookup.rolesOf(h.channel.workspace, h.person))].sort()).toEqual([...roles].sort());
        await h.setPersonRoles!([]);
        expect(
          await lookup.rolesOf(h.channel.workspace, h.person),
          'the roles as they are now, not as they were',
        ).toEqual([]);
        expect(await lookup.rolesOf(h.channel.workspace, h.nonMember!)).toEqual([]);
      },
    );
  }

  if (declares('stream')) {
    add('stream', 'stream: shows the answer as it is written, ending as exactly the final text, once', async (h) => {
      const thread = await freshThread(h, 'contract stream');
      const stream = h.adapter.capabilities.stream!.open(thread, h.person);
      const final = 'Streaming the answer 7731\n\nstill going, done.';
      stream.append('Streaming the answer 7731\n\n');
      stream.append('still going, done.');
      const ids = await stream.finish(final, [final]);
      expect(ids).toHaveLength(1);
      expect(
        having(await h.storedTexts(thread), '7731'),
        'the preview ends as exactly the final text, in one message',
      ).toEqual([final]);
    });

    add(
      'stream-stop',
      'stream: a stopped preview keeps what it showed with a stopped mark, and is not edited afterwards',
      async (h, t) => {
        const thread = await freshThread(h, 'contract stream stop');
        const stream = h.adapter.capabilities.stream!.open(thread, h.person);
        stream.append('partial answer 5512\n\n');
        await waitFor(
          async () => (await h.storedTexts(thread)).some((x) => x.includes('partial answer 5512')),
          t.wait,
          'the partial answer',
        );
        await stream.stop();
        stream.append('never shown 5513');
        expect(
          await stream.finish('never shown 5513', ['never shown 5513']),
          'a stopped preview finishes nothing',
        ).toEqual([]);
        const shown = having(await h.storedTexts(thread), '5512');
        expect(shown).toHaveLength(1);
        expect(shown[0], 'what it showed, marked as stopped').toContain(STOPPED_MARK);
        expect((await h.storedTexts(thread)).join('\n'), 'nothing is shown after the stop').not.toContain('5513');
      },
    );
  }

  if (declares('delete')) {
    add('delete', 'delete: removes its own message, and says so again when it is already gone', async (h, t) => {
      const thread = await freshThread(h, 'contract delete');
      const posted = await h.adapter.postMessage(thread, { text: 'to be deleted 4410' });
      await waitFor(async () => (await h.storedTexts(thread)).some((x) => x.includes('4410')), t.wait, 'the post');
      expect(await h.adapter.capabilities.delete!.deleteMessage(thread, posted.id)).toBe(true);
      await waitFor(
        async () => !(await h.storedTexts(thread)).some((x) => x.includes('4410')),
        t.last,
        'the post to be gone',
      );
      expect(
        await h.adapter.capabilities.delete!.deleteMessage(thread, posted.id),
        'deleting what is gone is done',
      ).toBe(true);
    });
  }

  if (declares('postedLookup')) {
    add(
      'postedLookup',
      'postedLookup: finds a post by the idempotency key it carried, and only that one',
      async (h) => {
        const thread = await freshThread(h, 'contract lookup');
        const posted = await h.adapter.postMessage(thread, { text: 'keyed post 8801', idempotencyKey: 'e880001' });
        const found = await h.adapter.capabilities.postedLookup!.findPosted(thread, ['e880001', 'e880002']);
        expect([...found], 'the key it carried, and no other').toEqual([['e880001', posted.id]]);
      },
    );
  }

  if (declares('previewLookup')) {
    add(
      'previewLookup',
      'previewLookup: finds the preview message whose post never got its answer to Errand',
      async (h, t) => {
        const thread = await freshThread(h, 'contract preview lookup');
        const since = Date.now() - 2000;
        let postedId: string | null = null;
        const stream = h.adapter.capabilities.stream!.open(thread, h.person, {
          beforeMessage: async () => ({ key: 'e990001', posted: async (id) => void (postedId = id) }),
        });
        try {
          stream.append('preview 6620\n\n');
          await waitFor(() => postedId !== null, t.wait, 'the preview to be posted');
          const probe = { key: 'e990001', since, until: null, known: new Set<string>(), text: 'preview 6620' };
          expect(
            await h.adapter.capabilities.previewLookup!.findUnrecordedPreview(thread, probe),
            'the preview is found',
          ).toBe(postedId);
        } finally {
          await stream.stop('discard');
        }
      },
    );
  }

  if (declares('history')) {
    add(
      'history',
      'history: reads the thread (people and itself told apart, oldest first) and its channel',
      async (h, t) => {
        const history = h.adapter.capabilities.history!;
        const thread = await freshThread(h, 'history root 3301');
        await h.personSays(thread, 'a person in the thread 3302');
        await h.adapter.postMessage(thread, { text: 'the bot in the thread 3303' });
        const page = (await waitFor(
          async () => {
            const p = await history.readThread(thread, { limit: 100 });
            return p.messages.some((m) => m.text.includes('3303')) ? p : null;
          },
          t.wait,
          'the thread read back',
        ))!;
        const person = page.messages.findIndex((m) => m.text.includes('3302'));
        const bot = page.messages.findIndex((m) => m.text.includes('3303'));
        expect(person).toBeGreaterThanOrEqual(0);
        expect(person, 'oldest first').toBeLessThan(bot);
        expect(page.messages[person]!.author, 'people and itself told apart').toMatchObject({
          id: h.person,
          isBot: false,
          isSelf: false,
        });
        expect(page.messages[bot]!.author, 'people and itself told apart').toMatchObject({ isBot: true, isSelf: true });
        for (const m of page.messages) expect(Number.isNaN(Date.parse(m.time))).toBe(false);
        const channel = await history.readChannel(thread, { limit: 100 });
        expect(
          channel.messages.some((m) => m.text.includes('history root 3301')),
          'the channel holds the message the thread was opened on',
        ).toBe(true);
        if (options.singleScreen !== true)
          expect(
            channel.messages.filter((m) => m.text.includes('3302')),
            "the channel, not the thread's replies",
          ).toEqual([]);
      },
    );

    if (options.readAfter === true) {
      add(
        'readAfter',
        'history: reads what was said after a message, as the live path would have handed it over',
        async (h, t) => {
          const history = h.adapter.capabilities.history!;
          const thread = await freshThread(h, 'contract catch-up');
          await h.personSays(thread, 'seen before 3401');
          const seen = (await waitFor(
            () => h.sink.messages.find((m) => m.text.includes('3401')),
            t.wait,
            'the message seen',
          ))!;
          await h.personSays(thread, 'missed while down 3402');
          await waitFor(() => h.sink.messages.some((m) => m.text.includes('3402')), t.wait, 'the message missed');
          const missed = await history.readAfter!(thread, { afterId: seen.messageId, limit: 50 });
          expect(
            missed.messages.map((m) => m.text),
            'what came after, and only that',
          ).toEqual([expect.stringContaining('missed while down 3402')]);
          expect(missed.messages[0]).toMatchObject({ addressedToBot: true, author: { id: h.person, isSelf: false } });
        },
      );
    }
  }

  if (declares('directMessage')) {
    add(
      'directMessage',
      'directMessage: reaches the person alone, in their direct conversation; a person who refuses DMs gives refused, not an error',
      async (h) => {
        const direct = h.adapter.capabilities.directMessage!;
        // Only what this run sent: the check runs again against broken adapters, in the same conversations.
        const dmsBefore = (await h.directMessagesOf!(h.person)).length;
        const channelBefore = (await h.storedTexts({ ...h.channel, thread: null })).length;
        expect(await direct.sendDirect(h.person, 'only for you 3501')).toMatchObject({ kind: 'sent' });
        expect(await direct.sendDirect(h.person, 'again for you 3502')).toMatchObject({ kind: 'sent' });
        const ours = (texts: string[]) => texts.filter((x) => /for you 350[12]/.test(x));
        expect(
          ours((await h.directMessagesOf!(h.person)).slice(dmsBefore)),
          'both reached their direct conversation',
        ).toEqual(['only for you 3501', 'again for you 3502']);
        expect(await direct.sendDirect(h.closedDmsPerson!, 'never delivered 3503'), 'a refusal is no error').toEqual({
          kind: 'refused',
        });
        expect(
          ours((await h.storedTexts({ ...h.channel, thread: null })).slice(channelBefore)),
          'nothing in the channel',
        ).toEqual([]);
      },
    );
  }

  if (declares('privateAnswers')) {
    add(
      'privateAnswers',
      'privateAnswers: says whether others read a conversation, and shows a message with its buttons to one person alone, never in the conversation',
      async (h, t) => {
        const thread = await freshThread(h, 'contract private answer');
        const capability = h.adapter.capabilities.privateAnswers!;
        // Every platform's threads are read by others; the console's one conversation by the person at the terminal alone.
        expect(capability.othersRead(thread), 'a thread is read by others').toBe(options.singleScreen !== true);
        if (h.directConversation)
          expect(
            capability.othersRead(h.directConversation),
            'a one-to-one conversation with the bot is read by nobody else',
          ).toBe(false);
        const buttons = [
          { actionId: 'errand:private:share:1', label: 'Share in thread' },
          { actionId: 'errand:private:keep:1', label: 'Keep private' },
        ];
        expect(await capability.showPrivately(thread, h.person, { text: 'only yours 6601', buttons })).toEqual({
          kind: 'shown',
        });
        const mine = async () => (await h.privatelyShown!(h.person, thread)).filter((m) => m.text.includes('6601'));
        const theirs = async () =>
          h.otherPerson === undefined
            ? []
            : (await h.privatelyShown!(h.otherPerson, thread)).filter((m) => m.text.includes('6601'));
        await waitFor(
          async () =>
            (await mine()).length > 0 ||
            (await theirs()).length > 0 ||
            having(await h.storedTexts(thread), '6601').length > 0,
          t.wait,
          'the private message anywhere',
        );
        expect(having(await h.storedTexts(thread), '6601'), 'never among the posts of the conversation').toEqual([]);
        expect(await mine(), 'shown to the person, with its buttons').toEqual([
          { text: expect.stringContaining('only yours 6601'), buttons: ['Share in thread', 'Keep private'] },
        ]);
        expect(await theirs(), 'not shown to someone else').toEqual([]);
      },
    );
  }

  if (declares('privateFiles')) {
    add(
      'privateFiles',
      'privateFiles: shows files to one person alone in their direct conversation, and the message with its buttons to them, nothing in the conversation',
      async (h, t) => {
        const thread = await freshThread(h, 'contract private files');
        const buttons = [
          { actionId: 'errand:private:share:2', label: 'Share in thread' },
          { actionId: 'errand:private:keep:2', label: 'Keep private' },
        ];
        const file = {
          name: 'mine-6701.txt',
          bytes: new TextEncoder().encode('only yours 6701'),
          mimeType: 'text/plain',
        };
        const before = (await h.directFilesOf!(h.person)).length;
        expect(
          await h.adapter.capabilities.privateFiles!.showFilesPrivately(thread, h.person, [file], {
            text: 'your files 6702',
            buttons,
          }),
        ).toEqual({ kind: 'shown' });
        const mine = async () => (await h.privatelyShown!(h.person, thread)).filter((m) => m.text.includes('6702'));
        await waitFor(
          async () =>
            (await mine()).length > 0 ||
            having(await h.storedTexts(thread), '6702').length > 0 ||
            (await h.storedFiles!(thread)).length > 0,
          t.wait,
          'the files anywhere',
        );
        expect(having(await h.storedTexts(thread), '670'), 'never among the posts of the conversation').toEqual([]);
        expect(await h.storedFiles!(thread), 'no file in the conversation').toEqual([]);
        const sent = (await h.directFilesOf!(h.person)).slice(before);
        expect(
          sent.map((f) => [f.name, Buffer.from(f.bytes).toString()]),
          'the files in their direct conversation, with their bytes',
        ).toEqual([['mine-6701.txt', 'only yours 6701']]);
        expect(await mine(), 'the message shown to the person, with its buttons').toEqual([
          { text: expect.stringContaining('your files 6702'), buttons: ['Share in thread', 'Keep private'] },
        ]);
      },
    );
  }

  if (declares('files')) {
    add(
      'files',
      'files: posts several files as one message, each with its bytes, an image as an image',
      async (h, t) => {
        const files = h.adapter.capabilities.files!;
        const thread = await freshThread(h, 'contract files 7701');
        const chart = { name: 'chart.png', bytes: ONE_PIXEL_PNG, mimeType: 'image/png' };
        const table = {
          name: 'totals.csv',
          bytes: new TextEncoder().encode('region,total\nnorth,7\n'),
          mimeType: 'text/csv',
        };
        expect(files.limits.maxFileBytes).toBeGreaterThan(ONE_PIXEL_PNG.byteLength);
        expect(files.limits.maxFilesPerMessage).toBeGreaterThanOrEqual(2);
        const posted = await files.postFiles(thread, { files: [chart, table], idempotencyKey: 'e770001' });
        expect(posted.id).not.toBe('');
        const stored = (await waitFor(
          async () => {
            const got = await h.storedFiles!(thread);
            return got.length >= 2 ? got : null;
          },
          t.wait,
          'the files in the conversation',
        ))!;
        expect(stored.map((f) => f.name)).toEqual(['chart.png', 'totals.csv']);
        expect(new Set(stored.map((f) => f.message)).size, 'the files were posted as one message').toBe(1);
        expect(Buffer.from(stored[0]!.bytes).equals(Buffer.from(chart.bytes)), 'each file with its bytes').toBe(true);
        expect(Buffer.from(stored[1]!.bytes).equals(Buffer.from(table.bytes)), 'each file with its bytes').toBe(true);
        if (stored[0]!.mimeType !== undefined) expect(stored[0]!.mimeType).toBe('image/png');
      },
    );
  }

  if (declares('session')) {
    add(
      'session',
      "session: shows a thread's work as working, waiting for a person, idle — only its changes — and the platform's Stop on it reaches the core",
      async (h, t) => {
        const thread = await freshThread(h, 'contract session 6610');
        const session = h.adapter.capabilities.session!;
        await session.setSession(thread, {
          state: 'working',
          principalUserId: h.person,
          title: 'contract session 6610',
        });
        await session.setSession(thread, { state: 'working' });
        await waitFor(async () => (await h.sessionStates!(thread)).length === 1, t.wait, 'the session working');
        // Each change waits to be shown before the next: a flip back within one call's time may be coalesced.
        await session.setSession(thread, { state: 'waiting' });
        await waitFor(async () => (await h.sessionStates!(thread)).length === 2, t.wait, 'the session waiting');
        await session.setSession(thread, { state: 'working' });
        await waitFor(async () => (await h.sessionStates!(thread)).length === 3, t.wait, 'the session working again');
        await h.stopSession!(thread);
        const stop = await waitFor(
          () => h.sink.sessionStops.find((s) => s.conversation.thread === thread.thread),
          t.last,
          'the Stop on the session',
        );
        expect(stop).toMatchObject({ conversation: thread, userId: h.person });
        await session.setSession(thread, { state: 'idle' });
        await waitFor(async () => (await h.sessionStates!(thread)).at(-1) === 'idle', t.wait, 'the session idle');
        expect(await h.sessionStates!(thread), 'every change, once').toEqual(['working', 'waiting', 'working', 'idle']);
      },
    );
  }

  if (declares('timezone')) {
    add('timezone', "timezone: tells the person's IANA timezone", async (h) => {
      expect(await h.adapter.capabilities.timezone!.fetchUserTimezone(h.person), "the person's timezone").toBe(
        h.personTimezone,
      );
    });
  }

  return checks;
}

/** A 1×1 PNG: a real image, which platforms show inline. */
export const ONE_PIXEL_PNG = Uint8Array.from(
  Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  ),
);
