import { DiscordAPIError } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { createMemberRolesLookup } from '../../adapters/discord/member-roles-lookup.js';
import { AdapterError } from '../../src/errors.js';

const GUILD = '1300000000000000002';
const BOB = '1300000000000000101';
const CAROL = '1300000000000000102';

const apiError = (code: number, status: number, message: string) =>
  new AdapterError(`Discord guild member lookup failed: ${message}`, {
    cause: new DiscordAPIError({ code, message }, code, status, 'GET', '/x', {}),
  });

/** A lookup over scripted answers per user id, on a clock the test moves. */
function lookupOver(answers: Record<string, () => unknown>) {
  let now = 0;
  const gets: string[] = [];
  const lookup = createMemberRolesLookup({
    get: async (_what, route) => {
      gets.push(route);
      const user = route.split('/').at(-1)!;
      const answer = answers[user]?.();
      if (answer instanceof Error) throw answer;
      return answer;
    },
    now: () => now,
    ttlMs: 1000,
  });
  return { lookup, gets, advance: (ms: number) => void (now += ms) };
}

describe('Discord member roles for caught-up messages', () => {
  it('reads a person once per catch-up, leaves @everyone out, and reads again once the answer is older than the catch-up', async () => {
    const { lookup, gets, advance } = lookupOver({
      [BOB]: () => ({ user: { id: BOB }, roles: [GUILD, '1300000000000000500'] }),
    });
    expect(await lookup(GUILD, BOB)).toEqual(['1300000000000000500']);
    expect(await lookup(GUILD, BOB)).toEqual(['1300000000000000500']);
    expect(gets).toEqual([`/guilds/${GUILD}/members/${BOB}`]);
    advance(1000);
    await lookup(GUILD, BOB);
    expect(gets).toHaveLength(2);
  });

  it('someone no longer in the server has no roles; any other failure is thrown and not remembered', async () => {
    let fail = true;
    const { lookup, gets } = lookupOver({
      [CAROL]: () => apiError(10007, 404, 'Unknown Member'),
      [BOB]: () => (fail ? apiError(0, 503, 'Service Unavailable') : { roles: ['1300000000000000500'] }),
    });
    expect(await lookup(GUILD, CAROL)).toEqual([]);
    await expect(lookup(GUILD, BOB)).rejects.toThrow(/Service Unavailable/);
    fail = false;
    expect(await lookup(GUILD, BOB)).toEqual(['1300000000000000500']);
    expect(gets.filter((g) => g.endsWith(BOB))).toHaveLength(2);
  });

  it('an answer without roles is an error naming what was wrong', async () => {
    const { lookup } = lookupOver({ [BOB]: () => ({ user: { id: BOB } }) });
    await expect(lookup(GUILD, BOB)).rejects.toThrow(/guild member lookup returned an unexpected response/);
  });
});
