import { describe, expect, it } from 'vitest';
import { outboxMetadata } from '../../adapters/slack/posted-lookup.js';
import { findUnrecordedPreview } from '../../adapters/slack/unrecorded-preview.js';

const BOT = 'B0ERRAND01';
const THREAD = '1700000000.000100';
/** `since` in ms for a Slack ts a few seconds after the thread started. */
const since = 1_700_000_010_000;

interface Wire {
  ts: string;
  bot_id?: string;
  user?: string;
  metadata?: { event_type: string; event_payload: { key: string } };
}

/** A thread as conversations.replies answers it (the parent first on every page), `pageSize` replies a page. */
function thread(replies: Wire[], pageSize = 200) {
  const calls: Record<string, unknown>[] = [];
  const call = async (method: string, args: Record<string, unknown>) => {
    expect(method).toBe('conversations.replies');
    calls.push(args);
    const start = typeof args.cursor === 'string' ? Number(args.cursor) : 0;
    const page = replies.slice(start, start + pageSize);
    const next = start + pageSize < replies.length ? String(start + pageSize) : '';
    return {
      ok: true,
      messages: [{ ts: THREAD, user: 'U0ALICE01' }, ...page],
      has_more: next !== '',
      response_metadata: { next_cursor: next },
    };
  };
  return { deps: { call, botId: () => BOT }, calls };
}

const where = { channelId: 'C0GENERAL1', threadTs: THREAD };
const probe = (known: string[] = [], until: number | null = null) => ({
  key: 'e42',
  since,
  until,
  known: new Set(known),
  text: '(interrupted)',
});

describe('finding a Slack preview message whose post never got its answer', () => {
  it('takes the bot’s earliest reply since the probe that no recorded id owns', async () => {
    const { deps, calls } = thread([
      { ts: '1700000005.000100', bot_id: BOT },
      { ts: '1700000011.000100', bot_id: BOT },
      { ts: '1700000012.000100', bot_id: BOT },
      { ts: '1700000013.000100', bot_id: BOT },
    ]);
    expect(await findUnrecordedPreview(deps, where, probe(['1700000011.000100']))).toBe('1700000012.000100');
    expect(calls[0]).toMatchObject({
      channel: 'C0GENERAL1',
      ts: THREAD,
      oldest: '1700000010.000000',
      include_all_metadata: true,
    });
  });

  it('never takes a person’s message, another bot’s, or a post that carries another outbox key', async () => {
    const { deps } = thread([
      { ts: '1700000011.000100', user: 'U0ALICE01' },
      { ts: '1700000012.000100', bot_id: 'B0OTHER001' },
      { ts: '1700000013.000100', bot_id: BOT, metadata: outboxMetadata('e41') },
    ]);
    expect(await findUnrecordedPreview(deps, where, probe())).toBeNull();
  });

  it('never takes a message from after the recovery: the run answering again may be streaming one', async () => {
    const { deps } = thread([{ ts: '1700000020.000100', bot_id: BOT }]);
    expect(await findUnrecordedPreview(deps, where, probe([], 1_700_000_015_000))).toBeNull();
    expect(await findUnrecordedPreview(deps, where, probe([], 1_700_000_025_000))).toBe('1700000020.000100');
  });

  it('takes the post that carries the preview’s own key, wherever it is', async () => {
    const { deps } = thread([
      { ts: '1700000011.000100', bot_id: BOT },
      { ts: '1700000012.000100', bot_id: BOT, metadata: outboxMetadata('e42') },
    ]);
    expect(await findUnrecordedPreview(deps, where, probe())).toBe('1700000012.000100');
  });

  it('reads every page of a long thread', async () => {
    const replies = Array.from({ length: 5 }, (_, i) => ({ ts: `17000000${11 + i}.000100`, bot_id: BOT }));
    const { deps, calls } = thread(replies, 2);
    const known = replies.slice(0, 4).map((r) => r.ts);
    expect(await findUnrecordedPreview(deps, where, probe(known))).toBe('1700000015.000100');
    expect(calls).toHaveLength(3);
  });
});
