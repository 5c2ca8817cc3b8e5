import { describe, expect, it } from 'vitest';
import { formatBytes } from '../../src/chat/byte-size.js';
import { BodyTooLargeError, readCappedBody } from '../../src/net/capped-body.js';
import { planFilePosts } from '../../src/outbox/files-out.js';

const file = (name: string, size: number) => ({
  name,
  bytes: new Uint8Array(size),
  mimeType: 'application/octet-stream',
});

describe('sizes in notes', () => {
  it('reads as people read them, in the decimal units the platforms state their limits in', () => {
    expect([0, 1, 999, 1000, 12_345, 1_500_000, 10 * 1024 * 1024, 100_000_000, 1e9].map(formatBytes)).toEqual([
      '0 bytes',
      '1 byte',
      '999 bytes',
      '1 kB',
      '12 kB',
      '1.5 MB',
      '10 MB',
      '100 MB',
      '1 GB',
    ]);
  });
});

describe('which messages a run’s files become', () => {
  const limits = { maxFileBytes: 100, maxFilesPerMessage: 3, maxMessageBytes: 150 };

  it('keeps the order, fills messages up to the files and bytes one may carry, and refuses what is empty or too big', () => {
    const files = [
      file('a', 60),
      file('empty', 0),
      file('b', 60),
      file('huge', 101),
      file('c', 20),
      file('d', 10),
      file('e', 40),
      file('f', 40),
    ];
    const plan = planFilePosts(files, limits, 'discord');
    // a, b and c fill a message (three files); d, e and f (90 bytes) the next.
    expect(plan.messages).toEqual([
      [0, 2, 4],
      [5, 6, 7],
    ]);
    // Bytes close a message too: 60 + 60 + 40 > 150.
    expect(planFilePosts([file('a', 60), file('b', 60), file('c', 40)], limits, 'discord').messages).toEqual([
      [0, 1],
      [2],
    ]);
    expect(plan.refused).toEqual([
      { index: 1, name: 'empty', reason: 'it is empty' },
      { index: 3, name: 'huge', reason: 'it is 101 bytes, and Discord takes files up to 100 bytes' },
    ]);
  });

  it('names the console and unknown platforms as such', () => {
    expect(planFilePosts([file('x', 101)], limits, 'console').refused[0]!.reason).toBe(
      'it is 101 bytes, and the console takes files up to 100 bytes',
    );
    expect(planFilePosts([file('x', 101)], limits, 'matrix').refused[0]!.reason).toContain('and matrix takes');
  });
});

describe('downloads held to the size the platform stated', () => {
  it('reads a body within the size, and stops one that grows past it', async () => {
    const body = (n: number, withLength: boolean) => new Response(new Uint8Array(n), withLength ? {} : { headers: {} });
    expect((await readCappedBody(body(10, true), 10, 'the file')).byteLength).toBe(10);
    await expect(readCappedBody(body(11, true), 10, 'the file')).rejects.toBeInstanceOf(BodyTooLargeError);
    const streamed = new Response(
      new ReadableStream({
        start(c) {
          c.enqueue(new Uint8Array(6));
          c.enqueue(new Uint8Array(6));
          c.close();
        },
      }),
    );
    await expect(readCappedBody(streamed, 10, 'the file')).rejects.toThrow(/more than the 10 bytes/);
    expect((await readCappedBody(body(50, true), null, 'the file')).byteLength).toBe(50);
  });
});
