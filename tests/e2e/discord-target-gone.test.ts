import { afterEach, describe, expect, it } from 'vitest';
import type { ChatAdapter } from '../../src/chat/chat-adapter.js';
import { runs, schedules } from '../../src/db/schema.js';
import { TargetGoneError } from '../../src/errors.js';
import { waitFor } from '../fakes/wait-for.js';
import { gate } from '../integration/harness.js';
import { startDiscordErrand, startDiscordHarness, type DiscordErrand, type DiscordHarness } from './discord-harness.js';
import { sqliteDb } from '../fakes/sqlite-db.js';

let h: DiscordHarness | null = null;
let e: DiscordErrand | null = null;
afterEach(async () => {
  await h?.close();
  await e?.close();
  h = null;
  e = null;
});

const rejection = async (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => null,
    (err: unknown) => err,
  );

describe('Discord: a channel or thread that can no longer be posted to', () => {
  it("posts to a deleted thread, a locked thread or a channel without access fail as gone for good, with Discord's code", async () => {
    h = await startDiscordHarness();
    const { fake, adapter } = h;
    const channel = { platform: 'discord', workspace: fake.guildId, channel: fake.general.id };
    const threadOn = async (adapter: ChatAdapter, text: string) =>
      adapter.openThread(channel, fake.userMessage(fake.general.id, text).id, text);
    const deleted = await threadOn(adapter, 'one');
    const locked = await threadOn(adapter, 'two');
    fake.deleteChannel(deleted.thread!);
    fake.lockThread(locked.thread!);
    const other = fake.addTextChannel('private');
    fake.revokeAccess(other.id);
    const codes = [];
    for (const target of [deleted, locked, { ...channel, channel: other.id, thread: null }]) {
      const err = await rejection(adapter.postMessage(target, { text: 'hello?' }));
      expect(err).toBeInstanceOf(TargetGoneError);
      codes.push((err as TargetGoneError).platformCode);
    }
    expect(codes).toEqual(['10003', '50083', '50001']);
  });

  it('the rest of a long reply and the posts queued behind it are not sent to a locked thread', async () => {
    h = await startDiscordHarness();
    const { fake, adapter } = h;
    const channel = { platform: 'discord', workspace: fake.guildId, channel: fake.general.id };
    const thread = await adapter.openThread(channel, fake.userMessage(fake.general.id, 'long').id, 'long');
    fake.lockThread(thread.thread!);
    // A long reply is posted as the pieces the adapter renders it into, one message each, as the outbox does.
    const pieces = adapter.render(`${'a'.repeat(1900)}\n\n${'b'.repeat(1900)}\n\n${'c'.repeat(1900)}`);
    expect(pieces).toHaveLength(3);
    const posts = [...pieces, 'and one more thing'].map((text) => adapter.postMessage(thread, { text }));
    for (const post of posts) expect(await rejection(post)).toBeInstanceOf(TargetGoneError);
    expect(fake.callsTo('POST', new RegExp(`^/channels/${thread.thread!}/messages$`))).toHaveLength(1);
  });

  it('a run whose thread is deleted mid-run stops at the failed post, with no further model call', async () => {
    e = await startDiscordErrand();
    const { discord: d, model, app } = e;
    const step = gate();
    model.reply({
      text: 'Step one.',
      toolCalls: [{ name: 'send_update', arguments: { text: 'Halfway there.' } }],
      gate: step.promise,
    });
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> do a long job`);
    await waitFor(() => model.requests.length === 1);
    d.deleteChannel(msg.id);
    step.open();
    await waitFor(() => sqliteDb(app.store).select().from(runs).all()[0]?.status === 'failed', 10_000);
    await app.coordinator.idle();
    expect(model.requests).toHaveLength(1);
    expect(sqliteDb(app.store).select().from(runs).all()[0]!.error).toMatch(/10003/);
    const [task] = await app.tasks.list(`discord:${d.guildId}:${d.general.id}:${msg.id}`);
    expect(task).toMatchObject({ status: 'failed' });
  });

  it('a thread schedule whose thread was deleted counts each run that could not post, and pauses after 3 in a row', async () => {
    e = await startDiscordErrand();
    const { discord: d, model, app, clock } = e;
    model.reply({ text: 'Hi.' });
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> hello`);
    await waitFor(() => d.botMessagesIn(msg.id).some((m) => m.content === 'Hi.'));
    await app.coordinator.idle();
    const created = await app.schedules.create({
      channel: { platform: 'discord', workspace: d.guildId, channel: d.general.id },
      target: 'thread',
      conversationId: `discord:${d.guildId}:${d.general.id}:${msg.id}`,
      prompt: 'check the build',
      kind: 'interval',
      spec: '10',
      timezone: 'UTC',
      createdBy: d.alice.id,
    });
    if (!created.ok) throw new Error(created.error);
    const id = created.schedule.id;
    const row = () =>
      sqliteDb(app.store)
        .select()
        .from(schedules)
        .all()
        .find((r) => r.id === id)!;
    d.deleteChannel(msg.id);
    for (const n of [1, 2]) {
      clock.advance(10 * 60_000);
      await waitFor(() => row().consecutiveFailures === n, 10_000);
      expect(row()).toMatchObject({ status: 'active' });
      expect(row().failReason).toMatch(/could not post: .*10003/);
    }
    clock.advance(10 * 60_000);
    await waitFor(() => row().status === 'paused', 10_000);
    expect(row().failReason).toMatch(/^Paused after 3 failed runs in a row/);
    await app.coordinator.idle();
    const requests = model.requests.length;
    clock.advance(30 * 60_000);
    await app.coordinator.idle();
    expect(model.requests).toHaveLength(requests);
  });
});
