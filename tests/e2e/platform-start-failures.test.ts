import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordAdapter } from '../../adapters/discord/create-discord-adapter.js';
import { createSlackAdapter } from '../../adapters/slack/create-slack-adapter.js';
import { RecordingSink } from '../contract/chat-adapter-contract.js';
import { FAKE_DISCORD_TOKEN } from '../fakes/fake-discord.js';
import { FakeSlack } from '../fakes/fake-slack.js';

/** A port on 127.0.0.1 where nothing listens (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The error a start-up rejects with; fails the test when it resolves. */
async function failureOf(start: Promise<unknown>): Promise<Error> {
  const outcome = await start.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(outcome instanceof Error)) throw new Error(`expected start() to fail, got ${String(outcome)}`);
  return outcome;
}

let fake: FakeSlack | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

const adapterAt = (apiUrl: string) =>
  createSlackAdapter({
    botToken: 'xoxb-test-token',
    signingSecret: 'secret',
    mode: 'http',
    port: 0,
    host: '127.0.0.1',
    apiUrl,
    tuning: { webApiRetries: 0 },
  });

describe('Slack start-up failures say what to fix (real Bolt)', () => {
  it('an unreachable Slack API is reported as unreachable, naming the URL and SLACK_API_URL, not the token', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/api/`;
    const err = await failureOf(adapterAt(url).start(new RecordingSink()));
    expect(err.message).toMatch(
      new RegExp(
        `^Could not reach Slack at ${url.replace(/[./]/g, '\\$&')} \\(ECONNREFUSED\\); check the network or SLACK_API_URL\\.$`,
      ),
    );
    expect(err.message).not.toContain('SLACK_BOT_TOKEN');
  });

  it('a token Slack rejects is reported as the token', async () => {
    fake = await FakeSlack.start();
    fake.failNext('auth.test', { error: 'invalid_auth' });
    const err = await failureOf(adapterAt(fake.apiUrl).start(new RecordingSink()));
    expect(err.message).toMatch(/^Slack rejected the bot token \(invalid_auth\); check SLACK_BOT_TOKEN/);
  });
});

describe('Discord start-up failures say what to fix (real discord.js)', () => {
  it('an unreachable Discord API is reported as unreachable, naming the URL and DISCORD_API_URL', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/api`;
    const adapter = createDiscordAdapter({
      token: FAKE_DISCORD_TOKEN,
      apiUrl: url,
      threads: true,
      tuning: { restRetries: 0, readyTimeoutMs: 20_000 },
    });
    const err = await failureOf(adapter.start(new RecordingSink()));
    expect(err.message).toBe(`Could not reach Discord at ${url} (ECONNREFUSED); check the network or DISCORD_API_URL.`);
  });
});
