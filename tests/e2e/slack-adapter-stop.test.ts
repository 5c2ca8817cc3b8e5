import { afterEach, describe, expect, it } from 'vitest';
import { createSlackAdapter, type SlackAdapter } from '../../adapters/slack/create-slack-adapter.js';
import { stopActionId } from '../../src/chat/action-id.js';
import { RecordingSink } from '../contract/chat-adapter-contract.js';
import { FakeSlack } from '../fakes/fake-slack.js';
import { waitFor } from '../fakes/wait-for.js';

const CHANNEL = 'C0GENERAL';

let fake: FakeSlack | null = null;
let adapter: SlackAdapter | null = null;
afterEach(async () => {
  fake?.releaseAnswers();
  await adapter?.stop();
  await fake?.close();
  adapter = null;
  fake = null;
});

describe("the Slack adapter's stop", () => {
  it('does not wait out a call Slack holds: a working indicator whose removal hangs still lets the adapter stop', async () => {
    fake = await FakeSlack.start({ rateLimit: null });
    adapter = createSlackAdapter({
      botToken: 'xoxb-test-token',
      signingSecret: fake.signingSecret,
      mode: 'http',
      port: 0,
      host: '127.0.0.1',
      apiUrl: fake.apiUrl,
      tuning: { workingReactionDelayMs: 0, workingNoticeDelayMs: 60_000 },
    });
    await adapter.start(new RecordingSink());
    fake.useHttpReceivers([`http://127.0.0.1:${adapter.httpPort()}/slack/events`]);
    const root = await fake.mention({ user: 'U0ALICE01', channel: CHANNEL, text: 'working, please' });
    const thread = await adapter.openThread(
      { platform: 'slack', workspace: fake.teamId, channel: CHANNEL },
      root.ts,
      'working',
    );
    await adapter.setWorking(thread, { runId: 'r1', sourceMessageId: root.ts, stopActionId: stopActionId('r1') });
    await waitFor(() => fake!.callsOf('reactions.add').length === 1, 5_000, 'the working reaction');

    // Slack takes the removal and never answers (until released): the web client would wait 30 s for it.
    fake.holdAnswers('reactions.remove');
    const stopping = adapter.stop();
    await waitFor(() => fake!.heldAnswers() === 1, 5_000, 'the removal sent at the stop');
    await stopping;
    adapter = null;
    // The stop returned while Slack still held the call: it bounded its wait instead of waiting for the answer.
    expect(fake.heldAnswers()).toBe(1);
    expect(fake.callsOf('reactions.remove')).toHaveLength(1);
  }, 20_000);
});
