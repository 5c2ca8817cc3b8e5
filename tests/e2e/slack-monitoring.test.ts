import { afterEach, describe, expect, it } from 'vitest';
import { createSlackAdapter, type SlackAdapter } from '../../adapters/slack/create-slack-adapter.js';
import { RecordingSink } from '../contract/chat-adapter-contract.js';
import { FakeSlack } from '../fakes/fake-slack.js';
import { waitFor } from '../fakes/wait-for.js';

const CHANNEL = 'C0GENERAL';

let fake: FakeSlack | null = null;
let adapter: SlackAdapter | null = null;
afterEach(async () => {
  await adapter?.stop();
  await fake?.close();
  adapter = null;
  fake = null;
});

async function start(
  mode: 'http' | 'socket',
  traffic = { posted: () => {}, rateLimited: () => {} },
): Promise<{ fake: FakeSlack; adapter: SlackAdapter }> {
  fake = await FakeSlack.start({ rateLimit: null });
  adapter = createSlackAdapter({
    botToken: 'xoxb-test-token',
    appToken: 'xapp-test-token',
    signingSecret: fake.signingSecret,
    mode,
    port: 0,
    host: '127.0.0.1',
    apiUrl: fake.apiUrl,
    traffic,
    tuning: { workingReactionDelayMs: 10_000, workingNoticeDelayMs: 10_000, socketPingTimeoutMs: 200 },
  });
  expect(adapter.connectionState?.()).toEqual({ connected: false, detail: 'not started' });
  await adapter.start(new RecordingSink());
  return { fake, adapter };
}

describe('Slack connection state and traffic', () => {
  it('Socket Mode reports connected once the socket is up, connected again after Slack recycles it, and not connected after stop', async () => {
    const { fake: f, adapter: a } = await start('socket');
    expect(a.connectionState?.()).toEqual({ connected: true });
    f.disconnectSockets();
    await waitFor(
      () =>
        f.callsOf('apps.connections.open').length >= 2 &&
        f.socketCount() === 1 &&
        a.connectionState?.().connected === true,
      10_000,
    );
    await a.stop();
    expect(a.connectionState?.()).toEqual({ connected: false, detail: 'stopped' });
  });

  it('the HTTP receiver reports connected with its port', async () => {
    const { adapter: a } = await start('http');
    expect(a.connectionState?.()).toEqual({ connected: true, detail: `receiving events on port ${a.httpPort()}` });
  });

  it('reports each accepted post and each 429 Slack answers', async () => {
    let posted = 0;
    let limited = 0;
    const { fake: f, adapter: a } = await start('http', { posted: () => posted++, rateLimited: () => limited++ });
    f.failNext('chat.postMessage', { status: 429, retryAfter: 0 });
    await a.postMessage({ platform: 'slack', workspace: f.teamId, channel: CHANNEL, thread: null }, { text: 'hello' });
    await a.postEphemeral(
      { platform: 'slack', workspace: f.teamId, channel: CHANNEL, thread: null },
      'U0ALICE01',
      'just you',
    );
    expect(limited).toBe(1);
    expect(posted).toBe(2);
    expect(f.callsOf('chat.postMessage').map((c) => c.status)).toEqual([429, 200]);
  });
});
