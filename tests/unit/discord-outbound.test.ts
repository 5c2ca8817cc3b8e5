import { describe, expect, it } from 'vitest';
import { createOutboundQueue } from '../../adapters/discord/outbound-queue.js';
import { toActionRows, toEditBody, toMessageBodies } from '../../adapters/discord/message-bodies.js';
import { answerActionId } from '../../src/chat/action-id.js';

describe('Discord message bodies', () => {
  it('pass Markdown through, prefix the mention, and let only the asker be pinged', () => {
    const [body, ...rest] = toMessageBodies({ text: '**Done** — see `notes.md` @everyone', mentionUserId: '42' });
    expect(rest).toEqual([]);
    expect(body).toEqual({
      content: '<@42> **Done** — see `notes.md` @\u200beveryone',
      allowed_mentions: { parse: [], users: ['42'] },
    });
  });

  it('split long text at 2000 characters with fences balanced and buttons on the last piece only', () => {
    const code = Array.from({ length: 200 }, (_, i) => `print(${i})`).join('\n');
    const bodies = toMessageBodies({
      text: `intro\n\n\`\`\`py\n${code}\n\`\`\``,
      buttons: [{ actionId: answerActionId('r', 'q1', 0), label: 'Yes' }],
    });
    expect(bodies.length).toBeGreaterThan(1);
    for (const b of bodies) {
      expect(b.content.length).toBeLessThanOrEqual(2000);
      expect((b.content.match(/```/g) ?? []).length % 2).toBe(0);
    }
    expect(bodies.map((b) => b.components?.length ?? 0)).toEqual([...bodies.slice(1).map(() => 0), 1]);
  });

  it('nothing to post is no body; buttons alone are a body', () => {
    expect(toMessageBodies({ text: '  ' })).toEqual([]);
    expect(toMessageBodies({ text: '', buttons: [{ actionId: 'a', label: 'A' }] })).toHaveLength(1);
  });

  it('make rows of at most five buttons, five rows at most, with styles and clamped labels', () => {
    const buttons = Array.from({ length: 27 }, (_, i) => ({
      actionId: `id${i}`,
      label: i === 0 ? 'x'.repeat(90) : `b${i}`,
      style: i === 1 ? ('danger' as const) : undefined,
    }));
    const rows = toActionRows(buttons);
    expect(rows.map((r) => r.components.length)).toEqual([5, 5, 5, 5, 5]);
    expect(rows[0]!.components[0]).toMatchObject({ type: 2, style: 2, label: 'x'.repeat(80), custom_id: 'id0' });
    expect(rows[0]!.components[1]).toMatchObject({ style: 4 });
  });

  it('an edit is one message and clears buttons that are not given', () => {
    expect(toEditBody({ text: 'x'.repeat(2500) })).toMatchObject({ components: [] });
    expect(toEditBody({ text: 'x'.repeat(2500) }).content.length).toBeLessThanOrEqual(2000);
  });
});

describe('per-channel outbound queue', () => {
  it('runs jobs of one channel in order, one at a time, and other channels alongside', async () => {
    const queue = createOutboundQueue({ count: 100, windowMs: 1000 });
    const log: string[] = [];
    const job = (name: string, ms: number) => async () => {
      log.push(`start ${name}`);
      await new Promise((r) => setTimeout(r, ms));
      log.push(`end ${name}`);
    };
    await Promise.all([
      queue.enqueue('a', job('a1', 20)),
      queue.enqueue('a', job('a2', 1)),
      queue.enqueue('b', job('b1', 1)),
    ]);
    expect(log.indexOf('end a1')).toBeLessThan(log.indexOf('start a2'));
    expect(log.indexOf('start b1')).toBeLessThan(log.indexOf('end a1'));
  });

  it('a failed job rejects its caller but does not block the next one', async () => {
    const queue = createOutboundQueue();
    const failed = queue.enqueue('a', async () => {
      throw new Error('boom');
    });
    const next = queue.enqueue('a', async () => 'ok');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ok');
  });

  it('paces sends to count per window, measured from when earlier sends completed', async () => {
    const queue = createOutboundQueue({ count: 2, windowMs: 60 });
    const at: number[] = [];
    const t0 = Date.now();
    await queue.enqueue('a', async (send) => {
      for (let i = 0; i < 5; i++) await send(async () => void at.push(Date.now() - t0));
    });
    expect(at[2]! - at[0]!).toBeGreaterThanOrEqual(59);
    expect(at[4]! - at[2]!).toBeGreaterThanOrEqual(59);
    await queue.drain();
  });
});
