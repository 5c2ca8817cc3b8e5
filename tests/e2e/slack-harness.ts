import type { InboundSink } from '../../src/chat/inbound.js';
import { createSlackAdapter, type SlackAdapter, type SlackTuning } from '../../adapters/slack/create-slack-adapter.js';
import { FakeSlack, type FakeSlackOptions } from '../fakes/fake-slack.js';

export interface SlackHarness {
  fake: FakeSlack;
  adapter: SlackAdapter;
  close(): Promise<void>;
}

/** Timings for tests: fast pacing (the fake is just as lenient) and a short working-notice delay. */
export const FAST_TUNING: SlackTuning = { messageRate: { burst: 10, perSecond: 200 }, workingNoticeDelayMs: 40, commandAckBudgetMs: 1000, webApiRetries: 0, socketPingTimeoutMs: 300 };

/**
 * The real Slack adapter (real Bolt) against the fake Slack, started with `sink` in HTTP mode
 * (signed requests to the receiver on 127.0.0.1) or Socket Mode (the fake's websocket).
 */
export async function startSlackAdapter(
  sink: InboundSink,
  opts: { mode?: 'http' | 'socket'; tuning?: SlackTuning; fake?: FakeSlackOptions; existingFake?: FakeSlack } = {},
): Promise<SlackHarness> {
  const fake = opts.existingFake ?? (await FakeSlack.start({ rateLimit: { burst: 20, perSecond: 400 }, ...opts.fake }));
  const mode = opts.mode ?? 'http';
  const adapter = createSlackAdapter({
    botToken: 'xoxb-test-token',
    appToken: 'xapp-test-token',
    signingSecret: fake.signingSecret,
    mode,
    port: 0,
    host: '127.0.0.1',
    apiUrl: fake.apiUrl,
    tuning: { ...FAST_TUNING, ...opts.tuning },
  });
  await adapter.start(sink);
  if (mode === 'http') fake.useHttpReceiver(`http://127.0.0.1:${adapter.httpPort()}/slack/events`);
  return {
    fake,
    adapter,
    async close() {
      await adapter.stop();
      if (!opts.existingFake) await fake.close();
    },
  };
}
