import { describe, expect, it } from 'vitest';
import { findUnrecordedPreview, NONCE_TRUSTED_MS, snowflakeAt } from '../../adapters/discord/unrecorded-preview.js';

const BOT = '1100000000000000001';
const ALICE = '1100000000000000002';
const since = Date.UTC(2026, 0, 5, 9, 0, 0);
const at = (ms: number, n = 1) => (BigInt(snowflakeAt(ms)) + BigInt(n)).toString();

/** A Discord whose channel holds `messages` and whose repost answers `reposted`, recording what it was asked. */
function discord(now: number, messages: { id: string; author: { id: string } }[] = []) {
  const asked: string[] = [];
  return {
    asked,
    deps: {
      repost: async (text: string, key: string) => {
        asked.push(`repost ${key} ${text}`);
        return 'stored-with-nonce';
      },
      get: async (route: string, query: URLSearchParams) => {
        asked.push(`get ${route} after=${query.get('after')}`);
        // Discord answers `after` newest first.
        return [...messages].filter((m) => BigInt(m.id) > BigInt(query.get('after')!)).reverse();
      },
      botId: () => BOT,
      now: () => now,
    },
  };
}
const probe = (known: string[] = [], until: number | null = null) => ({
  key: 'e42',
  since,
  until,
  known: new Set(known),
  text: '(interrupted)',
});

describe('finding a Discord preview message whose post never got its answer', () => {
  it('within the nonce window, sends the post again with its nonce: Discord answers with the stored message', async () => {
    const d = discord(since + NONCE_TRUSTED_MS - 1);
    expect(await findUnrecordedPreview(d.deps, '1200000000000000001', probe())).toBe('stored-with-nonce');
    expect(d.asked).toEqual(['repost e42 (interrupted)']);
  });

  it('past the nonce window, reads the channel from the probe on and takes the bot’s earliest unrecorded message before the recovery', async () => {
    const d = discord(since + NONCE_TRUSTED_MS, [
      { id: at(since - 1000), author: { id: BOT } },
      { id: at(since + 100), author: { id: ALICE } },
      { id: at(since + 200), author: { id: BOT } },
      { id: at(since + 300), author: { id: BOT } },
      { id: at(since + 60_000), author: { id: BOT } },
    ]);
    expect(await findUnrecordedPreview(d.deps, '1200000000000000001', probe([at(since + 200)], since + 50_000))).toBe(
      at(since + 300),
    );
    expect(d.asked).toEqual([`get /channels/1200000000000000001/messages after=${snowflakeAt(since)}`]);
  });

  it('past the nonce window, finds nothing when every bot message since is recorded or came after the recovery', async () => {
    const d = discord(since + NONCE_TRUSTED_MS, [
      { id: at(since + 200), author: { id: BOT } },
      { id: at(since + 60_000), author: { id: BOT } },
    ]);
    expect(
      await findUnrecordedPreview(d.deps, '1200000000000000001', probe([at(since + 200)], since + 50_000)),
    ).toBeNull();
  });
});
