import { afterEach, describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../src/chat/inbound.js';
import { RecordingSink } from '../contract/chat-adapter-contract.js';
import { waitFor } from '../fakes/wait-for.js';
import { startSlackAdapter, startErrand, type Errand, type SlackHarness } from './slack-harness.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';

/** A sink that stores its first message only when the test says so, like a database write that takes its time. */
class GatedSink extends RecordingSink {
  readonly started: InboundMessage[] = [];
  private release: () => void = () => {};
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve));

  override async onMessage(message: InboundMessage): Promise<void> {
    this.started.push(message);
    if (this.started.length === 1) await this.gate;
    await super.onMessage(message);
  }

  store(): void {
    this.release();
  }
}

let h: SlackHarness | null = null;
let e: Errand | null = null;
afterEach(async () => {
  await h?.close();
  await e?.close();
  h = null;
  e = null;
});

describe.each(['http', 'socket'] as const)('Slack events are acknowledged only once stored (%s mode)', (mode) => {
  it('the acknowledgement of a message waits until the core has stored it', async () => {
    const sink = new GatedSink();
    h = await startSlackAdapter(sink, { mode });
    if (mode === 'socket') await waitFor(() => h!.fake.socketCount() > 0, 10_000, 'the Socket Mode connection');
    let acked = false;
    const delivered = h.fake.userMessage({ user: ALICE, channel: 'D0ALICE01', text: 'remember this' }).then((d) => {
      acked = true;
      return d;
    });
    await waitFor(() => sink.started.length === 1, 10_000, 'the message to reach the core');
    // A later message, stored at once, is acknowledged; an early acknowledgement of the first would have come before it.
    await h.fake.userMessage({ user: ALICE, channel: 'D0ALICE01', text: 'and this' });
    expect(acked).toBe(false);
    expect(sink.messages.map((m) => m.text)).toEqual(['and this']);
    sink.store();
    const { delivery } = await delivered;
    expect(delivery.status).toBe(200);
    expect(sink.messages.map((m) => m.text)).toEqual(['and this', 'remember this']);
  });
});

describe('a Slack mention and the database', () => {
  it('by the time Slack has the acknowledgement, the task is in the database', async () => {
    e = await startErrand();
    e.model.reply({ hang: true });
    const { ts } = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'write the minutes' });
    const conversationId = `slack:${e.slack.teamId}:${CHANNEL}:${ts}`;
    expect((await e.app.tasks.list(conversationId)).map((t) => t.description)).toEqual(['write the minutes']);
  });
});
