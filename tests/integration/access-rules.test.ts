import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../fakes/wait-for.js';
import { startHarness, type Harness } from './harness.js';
import { toolResultJson } from '../support/tool-result-json.js';

let h: Harness;
afterEach(async () => h.close());

/** Starts Errand with an `access` block in its configuration file; the in-memory platform poses as Discord (numeric ids, roles). */
async function withAccess(
  access: Record<string, unknown>,
  extra: Parameters<typeof startHarness>[1] = {},
): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'errand-access-'));
  const file = join(dir, 'errand.json');
  writeFileSync(file, JSON.stringify({ access }));
  return startHarness({ ERRAND_CONFIG: file }, { platform: 'discord', ...extra });
}

const askStep = { toolCalls: [{ name: 'ask_user', arguments: { question: 'Which format?' } }] };

describe('access rules', () => {
  it('refuses someone not on the users list privately, once per conversation, with no model call and no task', async () => {
    h = await withAccess({ users: ['discord:123456', 'slack:U0ALLOWED'] });
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'hello', { userId: '999999' });
    await h.adapter.say(thread, 'hello again', { userId: '999999' });
    await waitFor(() => h.adapter.ephemerals.length >= 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(h.adapter.ephemerals).toEqual([
      {
        conversation: 'discord:W1:C1:T1',
        userId: '999999',
        text: expect.stringMatching(/not on the list of people who can use Errand here/),
      },
    ]);
    expect(h.model.requests).toHaveLength(0);
    expect(await h.app.tasks.list(await h.app.conversations.ensure(thread))).toHaveLength(0);
    expect(h.adapter.posts).toHaveLength(0);
  });

  it('lets listed people, people with a listed Discord-style role, and admins in', async () => {
    h = await withAccess({ users: ['discord:111111', 'discord:role:707070'], admins: ['discord:777777'] });
    h.model.respondWith(() => ({ text: 'hi' }));
    for (const [thread, opts] of [
      ['T1', { userId: '111111' }],
      ['T2', { userId: '222222', roles: ['707070'] }],
      ['T3', { userId: '777777' }],
    ] as const) {
      const ref = h.adapter.thread('100001', thread);
      await h.adapter.say(ref, 'hello', opts);
      await waitFor(() => h.adapter.textsIn(ref).includes('hi'));
    }
    expect(h.adapter.ephemerals).toEqual([]);
  });

  it('answers only in listed channels (admins anywhere)', async () => {
    h = await withAccess({ channels: ['discord:100001'], admins: ['discord:777777'] });
    h.model.respondWith(() => ({ text: 'hi' }));
    await h.adapter.say(h.adapter.thread('100002', 'T1'), 'hello', { userId: '111111' });
    await waitFor(() => h.adapter.ephemerals.length === 1);
    expect(h.adapter.ephemerals[0]!.text).toMatch(/isn't enabled in this channel/);
    await h.adapter.say(h.adapter.thread('100001', 'T1'), 'hello', { userId: '111111' });
    await waitFor(() => h.adapter.textsIn(h.adapter.thread('100001', 'T1')).includes('hi'));
    await h.adapter.say(h.adapter.thread('100002', 'T2'), 'hello', { userId: '777777' });
    await waitFor(() => h.adapter.textsIn(h.adapter.thread('100002', 'T2')).includes('hi'));
  });

  it('direct messages: off refuses everyone but admins; allowlist takes only listed people', async () => {
    h = await withAccess({ directMessages: 'off', admins: ['discord:777777'] });
    h.model.respondWith(() => ({ text: 'hi' }));
    const dm = h.adapter.thread('200001', null);
    await h.adapter.say(dm, 'hello', { userId: '111111', direct: true });
    await waitFor(() => h.adapter.ephemerals.length === 1);
    expect(h.adapter.ephemerals[0]!.text).toMatch(/doesn't take direct messages/);
    await h.close();

    h = await withAccess({ directMessages: 'allowlist', users: ['discord:111111'] });
    h.model.respondWith(() => ({ text: 'hi' }));
    await h.adapter.say(h.adapter.thread('200002', null), 'hello', { userId: '222222', direct: true });
    await waitFor(() => h.adapter.ephemerals.length === 1);
    expect(h.adapter.ephemerals[0]!.text).toMatch(/direct messages with Errand are limited/);
    await h.adapter.say(h.adapter.thread('200001', null), 'hello', { userId: '111111', direct: true });
    await waitFor(() => h.adapter.textsIn(h.adapter.thread('200001', null)).includes('hi'));
  });

  it('refuses commands and clicks from people who may not use Errand', async () => {
    h = await withAccess({ users: ['discord:111111'] });
    const reply = await h.adapter.command(
      'tasks',
      '',
      { platform: 'discord', workspace: 'W1', channel: '100001' },
      h.adapter.thread(),
      '999999',
    );
    expect(reply.text).toMatch(/not on the list/);
    h.model.reply(askStep);
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'write it', { userId: '111111' });
    await waitFor(() => h.adapter.posts.length === 1);
    await h.app.coordinator.idle();
    const run = (await h.app.runs.active(await h.app.conversations.ensure(thread)))!;
    expect((await h.adapter.click(`errand:stop:${run.id}`, thread, '', '999999'))?.text).toMatch(/not on the list/);
    expect(await h.app.runs.active(await h.app.conversations.ensure(thread))).toMatchObject({ status: 'waiting_user' });
  });

  it('with access rules, only the requester or an admin stops a run', async () => {
    h = await withAccess({ users: ['discord:111111', 'discord:222222'], admins: ['discord:777777'] });
    h.model.reply(askStep);
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'write it', { userId: '111111' });
    await waitFor(() => h.adapter.posts.length === 1);
    await h.app.coordinator.idle();
    const conv = await h.app.conversations.ensure(thread);
    await h.adapter.say(thread, 'stop', { userId: '222222' });
    await waitFor(() => h.adapter.ephemerals.length === 1);
    expect(h.adapter.ephemerals[0]).toMatchObject({
      userId: '222222',
      text: 'Only the person who asked for this work, or an admin, can stop it.',
    });
    expect(await h.app.runs.active(conv)).not.toBeNull();
    const slash = await h.adapter.command(
      'stop',
      '',
      { platform: 'discord', workspace: 'W1', channel: '100001' },
      thread,
      '222222',
    );
    expect(slash.text).toMatch(/Only the person who asked/);
    await h.adapter.say(thread, 'stop', { userId: '777777' });
    await waitFor(async () => (await h.app.runs.active(conv)) === null);
  });

  it("only the asker answers a question; someone else's message becomes a to-do; an admin may answer", async () => {
    h = await withAccess({ admins: ['discord:777777'] });
    h.model.reply(askStep, { text: 'Using PDF.' });
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'write the report', { userId: '111111' });
    await waitFor(() => h.adapter.posts.length === 1);
    await h.app.coordinator.idle();
    await h.adapter.say(thread, 'Markdown!', { userId: '222222' });
    await waitFor(() => h.adapter.textsIn(thread).some((t) => t.startsWith('📝 Queued as task #2')));
    const conv = await h.app.conversations.ensure(thread);
    expect(await h.app.runs.active(conv)).toMatchObject({ status: 'waiting_user' });
    const q = h.adapter.posts[0]!;
    expect(q.buttons).toEqual([]);
    await h.adapter.say(thread, 'PDF', { userId: '777777' });
    await waitFor(() => h.adapter.textsIn(thread).includes('Using PDF.'));
  });

  it('an admin may decide a tool approval asked of someone else', async () => {
    const { ExternalToolsFixture } = await import('./external-tools-fixture.js');
    const tools = new ExternalToolsFixture();
    const dir = mkdtempSync(join(tmpdir(), 'errand-access-'));
    writeFileSync(join(dir, 'errand.json'), JSON.stringify({ access: { admins: ['discord:777777'] } }));
    h = await startHarness(
      { ERRAND_CONFIG: join(dir, 'errand.json') },
      { externalTools: tools.source, platform: 'discord' },
    );
    h.model.reply({ toolCalls: [{ name: 'tracker__create_issue', arguments: { title: 'x' } }] }, { text: 'Filed.' });
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'file it', { userId: '111111' });
    await waitFor(() => h.adapter.posts.some((p) => p.buttons.length === 3));
    await h.app.coordinator.idle();
    const post = h.adapter.posts.find((p) => p.buttons.length === 3)!;
    expect((await h.adapter.click(post.buttons[0]!.actionId, thread, 'Allow once', '222222'))?.text).toMatch(
      /Only <@111111>/,
    );
    expect(await h.adapter.click(post.buttons[0]!.actionId, thread, 'Allow once', '777777')).toBeNull();
    await waitFor(() => h.adapter.textsIn(thread).includes('Filed.'));
    expect(tools.calls).toHaveLength(1);
  });

  it('reserves channel schedules for admins when access.schedules is "admins"', async () => {
    h = await withAccess({ schedules: 'admins', admins: ['discord:777777'] });
    const schedule = {
      toolCalls: [{ name: 'schedule_prompt', arguments: { prompt: 'summarise', kind: 'interval', spec: '60' } }],
    };
    h.model.reply(schedule, { text: 'done 1' }, schedule, { text: 'done 2' });
    const a = h.adapter.thread('100001', 'T1');
    await h.adapter.say(a, 'every hour summarise', { userId: '111111' });
    await waitFor(() => h.adapter.textsIn(a).includes('done 1'));
    const refused = h.model.requests[1]!.messages.filter((m) => m.role === 'tool').map((m) =>
      toolResultJson(m.content),
    );
    expect(refused[0]).toMatchObject({
      ok: false,
      error: expect.stringMatching(/Only admins may create schedules that post into a channel/),
    });
    const b = h.adapter.thread('100001', 'T2');
    await h.adapter.say(b, 'every hour summarise', { userId: '777777' });
    await waitFor(() => h.adapter.textsIn(b).includes('done 2'));
    const created = h.model.requests[3]!.messages.filter((m) => m.role === 'tool').map((m) =>
      toolResultJson(m.content),
    );
    expect(created[0]).toMatchObject({ ok: true });
  });
});
