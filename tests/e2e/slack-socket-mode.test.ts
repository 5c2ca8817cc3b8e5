import { afterEach, describe, expect, it } from 'vitest';
import { createSlackAdapter } from '../../adapters/slack/create-slack-adapter.js';
import { RecordingSink } from '../contract/chat-adapter-contract.js';
import { FakeSlack } from '../fakes/fake-slack.js';
import { waitFor } from '../fakes/wait-for.js';
import { startSlackAdapter, type SlackHarness } from './slack-harness.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';

describe('Slack adapter in Socket Mode (real Bolt, fake websocket)', () => {
  let h: SlackHarness | null = null;
  afterEach(async () => {
    await h?.close();
    h = null;
  });

  it('connects with the app token, receives mentions and commands, and survives a refresh disconnect', async () => {
    const sink = new RecordingSink();
    h = await startSlackAdapter(sink, { mode: 'socket' });
    expect(h.fake.callsOf('apps.connections.open')[0]?.token).toBe('xapp-test-token');
    expect(h.fake.socketCount()).toBe(1);

    const { ts } = await h.fake.mention({ user: ALICE, channel: CHANNEL, text: 'over the socket' });
    await waitFor(() => sink.messages.length === 1);
    expect(sink.messages[0]).toMatchObject({
      messageId: ts,
      text: 'over the socket',
      conversation: { channel: CHANNEL, thread: ts },
    });

    const command = await h.fake.slashCommand({ command: '/help', user: ALICE, channel: CHANNEL });
    expect(JSON.parse(command.body)).toEqual({ response_type: 'ephemeral', text: 'command reply' });

    h.fake.disconnectSockets();
    await waitFor(() => h!.fake.callsOf('apps.connections.open').length >= 2 && h!.fake.socketCount() === 1, 10_000);
    const after = await h.fake.mention({ user: ALICE, channel: CHANNEL, text: 'after the refresh' });
    await waitFor(() => sink.messages.some((m) => m.messageId === after.ts));
    await h.adapter.postMessage(sink.messages[0]!.conversation, { text: 'still here' });
    expect(h.fake.botTexts(CHANNEL, ts)).toEqual(['still here']);
  });

  it('fails to start with a message that names the setting to fix', async () => {
    const fake = await FakeSlack.start();
    try {
      const wrongApp = createSlackAdapter({
        botToken: 'xoxb-test',
        appToken: 'xoxb-not-an-app-token',
        mode: 'socket',
        apiUrl: fake.apiUrl,
        tuning: { webApiRetries: 0 },
      });
      await expect(wrongApp.start(new RecordingSink())).rejects.toThrow(/SLACK_APP_TOKEN/);
      await wrongApp.stop();
      fake.failNext('auth.test', { error: 'invalid_auth' });
      const wrongBot = createSlackAdapter({
        botToken: 'xoxb-revoked',
        appToken: 'xapp-test',
        mode: 'socket',
        apiUrl: fake.apiUrl,
      });
      await expect(wrongBot.start(new RecordingSink())).rejects.toThrow(/invalid_auth.*SLACK_BOT_TOKEN/);
    } finally {
      await fake.close();
    }
  });
});
