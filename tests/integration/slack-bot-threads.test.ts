import { Writable } from 'node:stream';
import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBotThreads, type BotThreads } from '../../adapters/slack/bot-threads.js';
import { createLogger } from '../../src/logger.js';
import { FakeSlack } from '../fakes/fake-slack.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';

let s: FakeSlack;
let warnings: string[];
let waits: number[];
let knownThreads: Set<string>;

/** BotThreads over a real WebClient on the fake Slack, with the database answer and the waits injected. */
function botThreads(): BotThreads {
  const client = new webApi.WebClient('xoxb-test-token', {
    slackApiUrl: s.apiUrl,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
  });
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      warnings.push(chunk.toString('utf8'));
      done();
    },
  });
  return createBotThreads({
    client,
    bot: () => ({ userId: s.botUserId, botId: s.botId }),
    logger: createLogger('warn', sink),
    known: async ({ channelId, threadTs }) => knownThreads.has(`${channelId}/${threadTs}`),
    sleep: async (ms) => void waits.push(ms),
  });
}

/** A thread whose replies include the bot's own post, as Slack stores it. */
async function threadWithBot(): Promise<string> {
  const root = s.postUndelivered({ user: ALICE, channel: CHANNEL, text: 'a thread' });
  const client = new webApi.WebClient('xoxb-test-token', { slackApiUrl: s.apiUrl });
  await client.chat.postMessage({ channel: CHANNEL, thread_ts: root.ts, text: 'the bot was here' });
  return root.ts;
}

beforeEach(async () => {
  s = await FakeSlack.start({ rateLimit: null, echo: false });
  warnings = [];
  waits = [];
  knownThreads = new Set();
});
afterEach(async () => s.close());

describe('deciding whether a Slack thread is the bot’s', () => {
  it('a thread in Errand’s database is the bot’s without any Slack call', async () => {
    knownThreads.add(`${CHANNEL}/1700000000.000100`);
    expect(await botThreads().includesBot(CHANNEL, '1700000000.000100', s.teamId)).toBe(true);
    expect(s.callsOf('conversations.replies')).toEqual([]);
  });

  it('a rate-limited lookup waits for Retry-After and asks again', async () => {
    const ts = await threadWithBot();
    s.failNext('conversations.replies', { status: 429, retryAfter: 7 });
    s.failNext('conversations.replies', { status: 429, retryAfter: 2 });
    expect(await botThreads().includesBot(CHANNEL, ts, s.teamId)).toBe(true);
    expect(waits).toEqual([7000, 2000]);
    expect(s.callsOf('conversations.replies')).toHaveLength(3);
  });

  it('a lookup that keeps failing says no, warns, and asks Slack again next time', async () => {
    const ts = await threadWithBot();
    for (let i = 0; i < 4; i++) s.failNext('conversations.replies', { status: 429, retryAfter: 1 });
    const threads = botThreads();
    expect(await threads.includesBot(CHANNEL, ts, s.teamId)).toBe(false);
    expect(warnings.join('\n')).toMatch(/could not say whether the bot is in this thread/);
    expect(await threads.includesBot(CHANNEL, ts, s.teamId)).toBe(true);
  });
});
