import { beforeAll, expect, it } from 'vitest';
import { waitFor } from '../fakes/wait-for.js';
import { freshThread, type CapabilityName, type ChatAdapterHarness, type ContractOptions } from './chat-adapter-harness.js';

/**
 * The part of the adapter contract that drives each capability an adapter declares, and the surfaces
 * (App Home, forms) it serves: called by chatAdapterContract inside its describe, with its harness.
 */
export function capabilityContract(harness: () => ChatAdapterHarness, options: ContractOptions): void {
  let h: ChatAdapterHarness;
  beforeAll(() => {
    h = harness();
  });

  const declares = (c: CapabilityName) => options.capabilities.includes(c);

  if (declares('memberRoles')) {
    it('memberRoles: reads a person’s roles as they are at the moment of asking, and none for someone not a member', async () => {
      const lookup = h.adapter.capabilities.memberRoles!;
      const roles = await h.setPersonRoles!(['contract-role']);
      expect([...(await lookup.rolesOf(h.channel.workspace, h.person))].sort()).toEqual([...roles].sort());
      await h.setPersonRoles!([]);
      expect(await lookup.rolesOf(h.channel.workspace, h.person)).toEqual([]);
      expect(await lookup.rolesOf(h.channel.workspace, h.nonMember!)).toEqual([]);
    });
  }

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

  if (declares('directMessage')) {
    it('directMessage: reaches the person alone, in their direct conversation; a person who refuses DMs gives refused, not an error', async () => {
      const direct = h.adapter.capabilities.directMessage!;
      expect(await direct.sendDirect(h.person, 'only for you 3501')).toMatchObject({ kind: 'sent' });
      expect(await direct.sendDirect(h.person, 'again for you 3502')).toMatchObject({ kind: 'sent' });
      expect(await h.directMessagesOf!(h.person)).toEqual(['only for you 3501', 'again for you 3502']);
      expect(await direct.sendDirect(h.closedDmsPerson!, 'never delivered 3503')).toEqual({ kind: 'refused' });
      expect(await h.storedTexts({ ...h.channel, thread: null })).not.toContain('only for you 3501');
    });
  }

  if (declares('privateAnswers')) {
    it('privateAnswers: says whether others read a conversation, and shows a message with its buttons to one person alone, never in the conversation', async () => {
      const thread = await freshThread(h, 'contract private answer');
      const capability = h.adapter.capabilities.privateAnswers!;
      // Every platform's threads are read by others; the console's one conversation by the person at the terminal alone.
      expect(capability.othersRead(thread)).toBe(h.onlyConversation === undefined);
      const buttons = [
        { actionId: 'errand:private:share:1', label: 'Share in thread' },
        { actionId: 'errand:private:keep:1', label: 'Keep private' },
      ];
      expect(await capability.showPrivately(thread, h.person, { text: 'only yours 6601', buttons })).toEqual({ kind: 'shown' });
      const privately = async () => [...(await h.noticesTo(h.person, thread)), ...((await h.directMessagesOf?.(h.person)) ?? [])];
      await waitFor(async () => (await privately()).some((t) => t.includes('only yours 6601')), 5000, 'the private message');
      expect((await h.storedTexts(thread)).join('\n')).not.toContain('6601');
    });
  }

  if (declares('privateFiles')) {
    it('privateFiles: shows files and a message with its buttons to one person alone, the files in their direct conversation, nothing in the conversation', async () => {
      const thread = await freshThread(h, 'contract private files');
      const buttons = [
        { actionId: 'errand:private:share:2', label: 'Share in thread' },
        { actionId: 'errand:private:keep:2', label: 'Keep private' },
      ];
      const file = { name: 'mine-6701.txt', bytes: new TextEncoder().encode('only yours 6701'), mimeType: 'text/plain' };
      expect(await h.adapter.capabilities.privateFiles!.showFilesPrivately(thread, h.person, [file], { text: 'your files 6702', buttons })).toEqual({ kind: 'shown' });
      const files = (await waitFor(async () => {
        const got = await h.directFilesOf!(h.person);
        return got.length > 0 ? got : null;
      }, 5000, 'the files in the direct conversation'))!;
      expect(files.map((f) => [f.name, Buffer.from(f.bytes).toString()])).toEqual([['mine-6701.txt', 'only yours 6701']]);
      const privately = async () => [...(await h.noticesTo(h.person, thread)), ...((await h.directMessagesOf?.(h.person)) ?? [])];
      await waitFor(async () => (await privately()).some((t) => t.includes('your files 6702')), 5000, 'the private message');
      expect((await h.storedTexts(thread)).join('\n')).not.toMatch(/670[12]/);
      expect(await h.storedFiles!(thread)).toEqual([]);
    });
  }

  if (options.surfaces?.home) {
    it('surfaces: asks the core for the App Home of the person who opens it, and shows it', async () => {
      const before = h.surfaces!.homes.length;
      await h.openHome!();
      expect(h.surfaces!.homes.slice(before)).toEqual([expect.objectContaining({ platform: h.adapter.platform, workspace: h.channel.workspace, userId: h.person })]);
    });
  }

  if (options.surfaces?.forms) {
    it('surfaces: opens the schedule form a command asks for and hands the submission to the core', async () => {
      h.sink.commandReply = { text: '', form: { scheduleId: null, values: { channel: h.channel.channel, prompt: '', when: '', timezone: 'UTC' } } };
      const shown = await h.submitScheduleForm!('post the digest 9902', '0 9 * * 1');
      expect(h.sink.commands.at(-1)).toMatchObject({ name: 'schedules', args: 'add' });
      expect(h.surfaces!.submissions.at(-1)).toMatchObject({
        platform: h.adapter.platform,
        workspace: h.channel.workspace,
        userId: h.person,
        scheduleId: null,
        values: { channel: h.channel.channel, prompt: 'post the digest 9902', when: '0 9 * * 1' },
      });
      expect(shown).toContain('Saved the schedule 9901.');
    });
  }

  if (declares('files')) {
    it('files: posts several files as one message, each with its bytes, an image as an image', async () => {
      const files = h.adapter.capabilities.files!;
      const thread = await freshThread(h, 'contract files 7701');
      const chart = { name: 'chart.png', bytes: ONE_PIXEL_PNG, mimeType: 'image/png' };
      const table = { name: 'totals.csv', bytes: new TextEncoder().encode('region,total\nnorth,7\n'), mimeType: 'text/csv' };
      expect(files.limits.maxFileBytes).toBeGreaterThan(ONE_PIXEL_PNG.byteLength);
      expect(files.limits.maxFilesPerMessage).toBeGreaterThanOrEqual(2);
      const posted = await files.postFiles(thread, { files: [chart, table], idempotencyKey: 'e770001' });
      expect(posted.id).not.toBe('');
      const stored = (await waitFor(async () => {
        const got = await h.storedFiles!(thread);
        return got.length >= 2 ? got : null;
      }, 5000, 'the files in the conversation'))!;
      expect(stored.map((f) => f.name)).toEqual(['chart.png', 'totals.csv']);
      expect(Buffer.from(stored[0]!.bytes).equals(Buffer.from(chart.bytes))).toBe(true);
      expect(Buffer.from(stored[1]!.bytes).equals(Buffer.from(table.bytes))).toBe(true);
      if (stored[0]!.mimeType !== undefined) expect(stored[0]!.mimeType).toBe('image/png');
    });
  }

  if (declares('session')) {
    it("session: shows a thread's work as working, waiting for a person, idle — only its changes — and the platform's Stop on it reaches the core", async () => {
      const thread = await freshThread(h, 'contract session 6610');
      const session = h.adapter.capabilities.session!;
      await session.setSession(thread, { state: 'working', principalUserId: h.person, title: 'contract session 6610' });
      await session.setSession(thread, { state: 'working' });
      await waitFor(async () => (await h.sessionStates!(thread)).length === 1, 5000, 'the session working');
      // Each change waits to be shown before the next: a flip back within one call's time may be coalesced.
      await session.setSession(thread, { state: 'waiting' });
      await waitFor(async () => (await h.sessionStates!(thread)).length === 2, 5000, 'the session waiting');
      await session.setSession(thread, { state: 'working' });
      await waitFor(async () => (await h.sessionStates!(thread)).length === 3, 5000, 'the session working again');
      await h.stopSession!(thread);
      const stop = await waitFor(() => h.sink.sessionStops.find((s) => s.conversation.thread === thread.thread), 5000, 'the Stop on the session');
      expect(stop).toMatchObject({ conversation: thread, userId: h.person });
      await session.setSession(thread, { state: 'idle' });
      await waitFor(async () => (await h.sessionStates!(thread)).at(-1) === 'idle', 5000, 'the session idle');
      expect(await h.sessionStates!(thread)).toEqual(['working', 'waiting', 'working', 'idle']);
    });
  }

  if (declares('timezone')) {
    it("timezone: tells the person's IANA timezone", async () => {
      expect(await h.adapter.capabilities.timezone!.fetchUserTimezone(h.person)).toBe(h.personTimezone);
    });
  }
}

/** A 1×1 PNG: a real image, which platforms show inline. */
export const ONE_PIXEL_PNG = Uint8Array.from(
  Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64'),
);
