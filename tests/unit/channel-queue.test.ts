import { describe, expect, it } from 'vitest';
import { createChannelQueue, type ChannelPacer } from '../../src/chat/channel-queue.js';
import { AdapterError, TargetGoneError } from '../../src/errors.js';
import { sharedPacing } from '../../src/chat/post-pacer.js';
import { silentLogger } from '../../src/logger.js';

const unpaced: ChannelPacer<null> = { create: () => null, send: (_s, call) => call(), idle: () => true };

describe('the per-channel outbound queue', () => {
  it('fails the jobs queued behind a post that found the channel gone with the same error, without calling the platform', async () => {
    const queue = createChannelQueue(unpaced);
    const called: string[] = [];
    const gone = new TargetGoneError('Slack chat.postMessage failed (is_archived)', 'is_archived');
    const first = queue.enqueue('C1', async (send) => send(async () => (called.push('first'), Promise.reject(gone))));
    const second = queue.enqueue('C1', async (send) => send(async () => (called.push('second'), 'posted')));
    const third = queue.enqueue('C1', async (send) => send(async () => (called.push('third'), 'posted')));
    const elsewhere = queue.enqueue('C2', async (send) => send(async () => (called.push('elsewhere'), 'posted')));
    await expect(first).rejects.toBe(gone);
    await expect(second).rejects.toBe(gone);
    await expect(third).rejects.toBe(gone);
    await expect(elsewhere).resolves.toBe('posted');
    expect(called).toEqual(['first', 'elsewhere']);
  });

  it('tries a channel again once what was queued there has settled (the bot may be back)', async () => {
    const queue = createChannelQueue(unpaced);
    const gone = new TargetGoneError('gone', '10003');
    await expect(queue.enqueue('C1', async () => Promise.reject(gone))).rejects.toBe(gone);
    await expect(queue.enqueue('C1', async () => 'posted')).resolves.toBe('posted');
  });

  it('keeps going after an ordinary failure', async () => {
    const queue = createChannelQueue(unpaced);
    const failed = queue.enqueue('C1', async () =>
      Promise.reject(new AdapterError('Slack chat.postMessage failed (invalid_blocks)')),
    );
    const next = queue.enqueue('C1', async () => 'posted');
    await expect(failed).rejects.toThrow(/invalid_blocks/);
    await expect(next).resolves.toBe('posted');
  });
});

describe('pacing shared with other processes', () => {
  it('waits the slot the shared pacer hands out before every call to the channel, retries included', async () => {
    const reserved: string[] = [];
    const slept: number[] = [];
    const pacer = {
      reserve: async (platform: string, channel: string, intervalMs: number) => (
        reserved.push(`${platform}:${channel}:${intervalMs}`),
        reserved.length === 1 ? 0 : 250
      ),
    };
    const beforeCall = sharedPacing({
      pacer,
      platform: 'discord',
      intervalMs: 250,
      logger: silentLogger(),
      sleep: async (ms) => void slept.push(ms),
    });
    let attempts = 0;
    const retrying: ChannelPacer<null> = {
      create: () => null,
      idle: () => true,
      async send(_s, call) {
        try {
          return await call();
        } catch {
          return call();
        }
      },
    };
    const queue = createChannelQueue(retrying, beforeCall);
    const result = await queue.enqueue('123', (send) =>
      send(async () => (++attempts === 1 ? Promise.reject(new Error('429')) : 'posted')),
    );
    expect(result).toBe('posted');
    expect(reserved).toEqual(['discord:123:250', 'discord:123:250']);
    expect(slept).toEqual([250]);
  });

  it('posts anyway, under its own pacing, when the shared pacer fails', async () => {
    const pacer = { reserve: async () => Promise.reject(new Error('database unreachable')) };
    const queue = createChannelQueue(
      unpaced,
      sharedPacing({ pacer, platform: 'slack', intervalMs: 1000, logger: silentLogger() }),
    );
    await expect(queue.enqueue('C024BE91L', (send) => send(async () => 'posted'))).resolves.toBe('posted');
  });
});
