import { describe, expect, it } from 'vitest';
import { createOutboundQueue } from '../../adapters/slack/outbound-queue.js';
import { RateLimitError } from '../../src/errors.js';

class Limited extends Error {
  constructor(readonly waitMs: number) {
    super('429');
  }
}
const retryAfterMs = (err: unknown) => (err instanceof Limited ? err.waitMs : null);

describe('Slack outbound queue', () => {
  it('lets a burst through at once, then paces the channel at the sustained rate, in order', async () => {
    const q = createOutboundQueue({ rate: { burst: 3, perSecond: 10 }, retryAfterMs });
    const sent: { n: number; at: number }[] = [];
    const t0 = Date.now();
    await Promise.all(
      Array.from({ length: 6 }, (_, n) =>
        q.enqueue('C1', (send) => send(async () => sent.push({ n, at: Date.now() - t0 }))),
      ),
    );
    expect(sent.map((s) => s.n)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(sent[2]!.at).toBeLessThan(80);
    expect(sent[5]!.at).toBeGreaterThanOrEqual(290);
  });

  it('keeps channels independent', async () => {
    const q = createOutboundQueue({ rate: { burst: 1, perSecond: 2 }, retryAfterMs });
    const t0 = Date.now();
    await q.enqueue('C1', (send) => send(async () => 1));
    await q.enqueue('C2', (send) => send(async () => 2));
    expect(Date.now() - t0).toBeLessThan(200);
  });

  it('waits out a 429 and sends the same call again, without letting later jobs overtake it', async () => {
    const q = createOutboundQueue({ rate: { burst: 5, perSecond: 100 }, retryAfterMs });
    const log: string[] = [];
    let failed = false;
    const first = q.enqueue('C1', (send) =>
      send(async () => {
        if (!failed) {
          failed = true;
          log.push('429');
          throw new Limited(60);
        }
        log.push('first');
      }),
    );
    const second = q.enqueue('C1', (send) => send(async () => void log.push('second')));
    const t0 = Date.now();
    await Promise.all([first, second]);
    expect(log).toEqual(['429', 'first', 'second']);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(55);
  });

  it('passes other errors through and keeps serving the channel; gives up on endless 429s', async () => {
    const q = createOutboundQueue({ rate: { burst: 5, perSecond: 100 }, retryAfterMs, maxRateLimitRetries: 2 });
    await expect(q.enqueue('C1', (send) => send(async () => Promise.reject(new Error('boom'))))).rejects.toThrow(
      'boom',
    );
    await expect(q.enqueue('C1', (send) => send(async () => Promise.reject(new Limited(1))))).rejects.toBeInstanceOf(
      RateLimitError,
    );
    await expect(q.enqueue('C1', (send) => send(async () => 'ok'))).resolves.toBe('ok');
    await q.drain();
  });
});
