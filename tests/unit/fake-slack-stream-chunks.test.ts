import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack } from '../fakes/fake-slack.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';

let slack: FakeSlack;
let client: WebClient;
beforeAll(async () => {
  slack = await FakeSlack.start({ rateLimit: null });
  client = new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
});
afterAll(async () => {
  await slack.close();
});

/** A person's message to stream under, and the recipient fields a channel stream needs. */
function thread() {
  const { ts } = slack.postUndelivered({ user: ALICE, channel: CHANNEL, text: 'help me' });
  return { channel: CHANNEL, thread_ts: ts, recipient_team_id: slack.teamId, recipient_user_id: ALICE };
}

/** The Slack error code of a refused call (the real client throws on `ok: false`). */
async function errorOf(call: Promise<unknown>): Promise<string | null> {
  try {
    await call;
    return null;
  } catch (err) {
    return (err as { data?: { error?: string } }).data?.error ?? 'no code';
  }
}

describe('the Slack fake reads streaming chunks as Slack does', () => {
  it('keeps task cards by id, each as last updated, with the display mode and the markdown text after them', async () => {
    const started = await client.chat.startStream({
      ...thread(),
      task_display_mode: 'plan',
      chunks: [{ type: 'task_update', id: 'call_1', title: 'Reading the thread', status: 'in_progress' }],
    });
    const ts = started.ts!;
    await client.chat.appendStream({
      channel: CHANNEL,
      ts,
      chunks: [
        { type: 'task_update', id: 'call_1', title: 'Reading the thread', status: 'complete', output: '12 messages' },
      ],
    });
    await client.chat.stopStream({
      channel: CHANNEL,
      ts,
      chunks: [{ type: 'markdown_text', text: 'Here is the summary.' }],
    });
    const msg = slack.messages(CHANNEL).find((m) => m.ts === ts)!;
    expect(msg.taskDisplayMode).toBe('plan');
    expect(msg.tasks).toEqual([
      { id: 'call_1', title: 'Reading the thread', status: 'complete', output: '12 messages' },
    ]);
    expect(msg.text).toBe('Here is the summary.');
    expect(msg.streaming).toBe(false);
  });

  it('refuses an unknown chunk type, a task without id or title or with an unknown status, and a bad display mode', async () => {
    expect(
      await errorOf(client.chat.startStream({ ...thread(), chunks: [{ type: 'sparkles', text: 'x' } as never] })),
    ).toBe('invalid_chunks');
    expect(
      await errorOf(
        client.chat.startStream({
          ...thread(),
          chunks: [{ type: 'task_update', title: 'Running x', status: 'in_progress' } as never],
        }),
      ),
    ).toBe('invalid_chunks');
    expect(
      await errorOf(
        client.chat.startStream({
          ...thread(),
          chunks: [{ type: 'task_update', id: 'a', title: '', status: 'in_progress' }],
        }),
      ),
    ).toBe('invalid_chunks');
    expect(
      await errorOf(
        client.chat.startStream({
          ...thread(),
          chunks: [{ type: 'task_update', id: 'a', title: 'Running x', status: 'spinning' } as never],
        }),
      ),
    ).toBe('invalid_chunks');
    expect(
      await errorOf(client.chat.startStream({ ...thread(), markdown_text: 'hi', task_display_mode: 'grid' })),
    ).toBe('invalid_arguments');
  });

  it('refuses appends and stops once the stream is stopped, and an append with neither text nor chunks', async () => {
    const { ts } = await client.chat.startStream({ ...thread(), markdown_text: 'Working' });
    expect(await errorOf(client.chat.appendStream({ channel: CHANNEL, ts: ts!, markdown_text: '' }))).toBe(
      'invalid_arguments',
    );
    await client.chat.stopStream({ channel: CHANNEL, ts: ts! });
    expect(
      await errorOf(
        client.chat.appendStream({
          channel: CHANNEL,
          ts: ts!,
          chunks: [{ type: 'task_update', id: 'a', title: 'Running x', status: 'complete' }],
        }),
      ),
    ).toBe('message_not_in_streaming_state');
    expect(await errorOf(client.chat.stopStream({ channel: CHANNEL, ts: ts! }))).toBe('message_not_in_streaming_state');
  });

  it('adds a task’s details to what it showed, and refuses chunks where the workspace does not take them', async () => {
    const { ts } = await client.chat.startStream({
      ...thread(),
      chunks: [{ type: 'task_update', id: 'a', title: 'Running x', status: 'in_progress', details: 'one. ' }],
    });
    await client.chat.appendStream({
      channel: CHANNEL,
      ts: ts!,
      chunks: [{ type: 'task_update', id: 'a', title: 'Running x', status: 'in_progress', details: 'two.' }],
    });
    expect(slack.messages(CHANNEL).find((m) => m.ts === ts)!.tasks![0]!.details).toBe('one. two.');
    slack.refuseChunks('invalid_chunks');
    try {
      expect(
        await errorOf(client.chat.startStream({ ...thread(), chunks: [{ type: 'markdown_text', text: 'x' }] })),
      ).toBe('invalid_chunks');
      expect(
        await errorOf(client.chat.startStream({ ...thread(), markdown_text: 'plain text still streams' })),
      ).toBeNull();
    } finally {
      slack.refuseChunks(null);
    }
  });
});
