import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../fakes/wait-for.js';
import { startErrand, texts, type Errand } from './slack-harness.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';

let e: Errand | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
});

describe('Scheduled prompts on Slack, end to end', () => {
  it('a scheduled prompt posts at the top level of the channel, then runs in its thread', async () => {
    e = await startErrand();
    const { slack: s, model, clock } = e;
    const at = new Date(clock.now() + 60 * 60_000).toISOString();
    model.reply(
      {
        toolCalls: [
          {
            name: 'schedule_prompt',
            arguments: { prompt: 'summarise the day', kind: 'once', spec: at, timezone: 'UTC' },
          },
        ],
      },
      { text: 'Scheduled for in an hour.' },
      { text: 'Here is the summary.' },
    );
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'in an hour, summarise the day' });
    await waitFor(() => texts(s, ts).includes('Scheduled for in an hour.'));
    await e.app.coordinator.idle();
    clock.advance(60 * 60_000 + 1000);
    const top = (await waitFor(() =>
      s.messages(CHANNEL, null).find((m) => m.user === s.botUserId && m.text.includes('summarise the day')),
    ))!;
    expect(top.text).toContain('Scheduled prompt');
    await waitFor(() => texts(s, top.ts).includes('Here is the summary.'));
    expect(JSON.stringify(model.requests[2]!.messages)).toContain('summarise the day');
  });
});
