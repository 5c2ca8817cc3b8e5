import { afterEach, describe, expect, it } from 'vitest';
import { memoryForgetActionId } from '../../src/chat/action-id.js';
import { startDiscordErrand, until, type DiscordErrand } from './discord-harness.js';

let e: DiscordErrand | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
});

describe('/memory on Discord', () => {
  it("lists Alice's memory and the channel's with Forget buttons; a click forgets hers, and the forget option works too", async () => {
    e = await startDiscordErrand();
    const d = e.discord;
    const channel = `discord:${d.guildId}:${d.general.id}`;
    const alice = `discord:${d.alice.id}`;
    const mine = await e.app.store.memory.remember({
      scope: 'me',
      subject: alice,
      text: 'Alice is on the payments team',
      createdBy: alice,
    });
    const shared = await e.app.store.memory.remember({
      scope: 'channel',
      subject: channel,
      text: 'Releases go out on Thursdays',
      createdBy: alice,
    });

    const listing = d.slashCommand('memory', d.general.id);
    await until(() => listing.responses.length === 1);
    const reply = listing.responses[0]!;
    expect(reply.ephemeral).toBe(true);
    expect(reply.content).toContain(`#${mine.id} Alice is on the payments team`);
    expect(reply.content).toContain(`#${shared.id} Releases go out on Thursdays`);
    expect(JSON.stringify(reply.components)).toContain(memoryForgetActionId(mine.id));

    const click = d.clickInResponse(listing, memoryForgetActionId(mine.id));
    await until(() => click.responses.length === 1);
    expect(click.responses[0]).toMatchObject({
      ephemeral: true,
      content: expect.stringContaining(`Forgot #${mine.id}`),
    });
    expect(await e.app.store.memory.memory(mine.id)).toBeNull();

    const byOption = d.slashCommand('memory', d.general.id, [{ name: 'forget', type: 4, value: shared.id }]);
    await until(() => byOption.responses.length === 1);
    expect(byOption.responses[0]!.content).toContain(`Forgot #${shared.id}`);
    expect(await e.app.store.memory.memory(shared.id)).toBeNull();
  });
});
