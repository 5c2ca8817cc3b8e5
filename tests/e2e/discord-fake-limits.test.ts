import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_DISCORD_TOKEN, nextSnowflake, startFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';

let fake: FakeDiscord;
const INTERACTION_WINDOW_MS = 1000;
beforeEach(async () => {
  // The interaction window is short, but not so short that a loaded machine misses it on the first callback.
  fake = await startFakeDiscord({
    messageLimit: { count: 5, windowMs: 5000 },
    interactionTimeoutMs: INTERACTION_WINDOW_MS,
  });
});
afterEach(async () => fake.close());

async function call(
  method: string,
  path: string,
  body?: unknown,
  auth = true,
): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${fake.apiUrl}/v10${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bot ${FAKE_DISCORD_TOKEN}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: res.headers };
}

describe('the fake Discord enforces the real limits', () => {
  it('message history: newest first, windows by before and after, limit 1–100 (else 50035)', async () => {
    const path = `/channels/${fake.general.id}/messages`;
    const ids = [1, 2, 3, 4].map((i) => fake.userMessage(fake.general.id, `m${i}`).id);
    const list = async (query: string) =>
      ((await call('GET', `${path}?${query}`)).json as unknown as { content: string }[]).map((m) => m.content);
    expect(await list('limit=2')).toEqual(['m4', 'm3']);
    expect(await list(`limit=2&before=${ids[2]}`)).toEqual(['m2', 'm1']);
    expect(await list(`limit=2&after=${ids[0]}`)).toEqual(['m3', 'm2']);
    expect((await call('GET', `${path}?limit=101`)).json).toMatchObject({ code: 50035 });
    expect((await call('GET', `${path}?limit=0`)).status).toBe(400);
  });

  it('message content: at most 2000 characters (50035), never empty (50006); no auth → 401', async () => {
    const path = `/channels/${fake.general.id}/messages`;
    expect((await call('POST', path, { content: 'x'.repeat(2001) })).json).toMatchObject({ code: 50035 });
    expect((await call('POST', path, { content: '' })).json).toMatchObject({ code: 50006 });
    expect((await call('POST', path, { content: 'x'.repeat(2000) })).status).toBe(200);
    expect((await call('POST', path, { content: 'hi' }, false)).status).toBe(401);
  });

  it('DMs: Create DM returns the one DM channel per user (type 1, recipients); a post there is refused (403, 50007) when DMs are closed or no server is shared', async () => {
    const open = async (userId: string) => call('POST', '/users/@me/channels', { recipient_id: userId });
    const first = await open(fake.alice.id);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ type: 1, recipients: [{ id: fake.alice.id }] });
    expect((await open(fake.alice.id)).json.id).toBe(first.json.id);
    expect((await call('POST', `/channels/${String(first.json.id)}/messages`, { content: 'hello' })).status).toBe(200);
    expect((await open('123456789012345678')).json).toMatchObject({ code: 10013 });
    expect((await call('POST', '/users/@me/channels', { recipient_id: 'alice' })).json).toMatchObject({ code: 50035 });
    for (const refusing of [
      { id: nextSnowflake(), username: 'closed', dmsClosed: true },
      { id: nextSnowflake(), username: 'stranger', outsideGuild: true },
    ]) {
      fake.users.set(refusing.id, refusing);
      const dm = await open(refusing.id);
      expect(dm.status).toBe(200);
      const post = await call('POST', `/channels/${String(dm.json.id)}/messages`, { content: 'hello' });
      expect(post.status).toBe(403);
      expect(post.json).toMatchObject({ code: 50007, message: 'Cannot send messages to this user' });
    }
  });

  it('about 5 messages per 5 s per channel, then 429 with retry_after and X-RateLimit headers', async () => {
    const path = `/channels/${fake.general.id}/messages`;
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await call('POST', path, { content: `m${i}` }));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(results[4]!.headers.get('x-ratelimit-remaining')).toBe('0');
    const limited = results[5]!;
    expect(Number(limited.json.retry_after)).toBeGreaterThan(0);
    expect(limited.headers.get('retry-after')).toBeTruthy();
    expect(limited.headers.get('x-ratelimit-limit')).toBe('5');
    const other = fake.addTextChannel('other');
    expect((await call('POST', `/channels/${other.id}/messages`, { content: 'elsewhere' })).status).toBe(200);
  });

  it('threads: name 1–100 characters (50035), one thread per message (160004)', async () => {
    const msg = fake.userMessage(fake.general.id, 'start here');
    const path = `/channels/${fake.general.id}/messages/${msg.id}/threads`;
    expect((await call('POST', path, { name: 'n'.repeat(101) })).json).toMatchObject({ code: 50035 });
    expect((await call('POST', path, { name: '' })).json).toMatchObject({ code: 50035 });
    expect((await call('POST', path, { name: 'fine' })).status).toBe(201);
    expect((await call('POST', path, { name: 'again' })).json).toMatchObject({ code: 160004 });
    expect(fake.messages.get(msg.id)!.thread).toBe(msg.id);
  });

  it('interactions: one callback (40060), and only within the time limit (10062)', async () => {
    const first = fake.slashCommand('help', fake.general.id);
    const path = `/interactions/${first.id}/${first.token}/callback`;
    expect((await call('POST', path, { type: 4, data: { content: 'ok' } }, false)).status).toBe(204);
    expect((await call('POST', path, { type: 4, data: { content: 'again' } }, false)).json).toMatchObject({
      code: 40060,
    });
    const late = fake.slashCommand('help', fake.general.id);
    await new Promise((r) => setTimeout(r, INTERACTION_WINDOW_MS + 20));
    expect(
      (await call('POST', `/interactions/${late.id}/${late.token}/callback`, { type: 5 }, false)).json,
    ).toMatchObject({ code: 10062 });
  });
});
