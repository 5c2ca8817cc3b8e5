import { PermissionFlagsBits } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { inviteUrl, REQUIRED_PERMISSIONS } from '../../adapters/discord/invite-url.js';
import { stripMention, threadName } from '../../adapters/discord/message-handler.js';
import { commandDefinitions } from '../../adapters/discord/slash-commands.js';

describe('Discord set-up pieces', () => {
  it('the invite URL asks for the bot and commands scopes and exactly the permissions Errand uses', () => {
    const url = new URL(inviteUrl('123456789012345678'));
    expect(url.origin + url.pathname).toBe('https://discord.com/oauth2/authorize');
    expect(url.searchParams.get('client_id')).toBe('123456789012345678');
    expect(url.searchParams.get('scope')).toBe('bot applications.commands');
    expect(url.searchParams.get('permissions')).toBe('309237713920');
    expect(REQUIRED_PERMISSIONS.toArray().sort()).toEqual([
      'CreatePublicThreads',
      'ReadMessageHistory',
      'SendMessages',
      'SendMessagesInThreads',
      'ViewChannel',
    ]);
    expect(REQUIRED_PERMISSIONS.has(PermissionFlagsBits.Administrator)).toBe(false);
  });

  it('command definitions are valid Discord names with descriptions, usable in servers and DMs', () => {
    const defs = commandDefinitions();
    expect(defs.map((d) => d.name)).toEqual([
      'tasks',
      'stop',
      'schedules',
      'usage',
      'connections',
      'memory',
      'help',
      'skills',
      'admin',
    ]);
    for (const d of defs) {
      expect(d.description.length).toBeGreaterThan(0);
      expect(d.description.length).toBeLessThanOrEqual(100);
      expect(d.contexts).toEqual([0, 1]);
    }
  });

  it("strips the bot's user and role mentions, keeping other people's", () => {
    expect(stripMention('<@111>  please ping <@222> about it', '111', null)).toBe('please ping <@222> about it');
    expect(stripMention('<@!111> hi\n<@&333> there', '111', '333')).toBe('hi\nthere');
  });

  it('names threads after the first line of the request, within 1–100 characters', () => {
    expect(threadName('  fix the build\nit fails on CI', 'alice')).toBe('fix the build');
    expect(threadName('', 'alice')).toBe('Request from alice');
    expect(threadName('<@222> <#333>', 'bob')).toBe('Request from bob');
    const long = threadName(`${'word '.repeat(40)}end`, 'alice');
    expect(long.length).toBeLessThanOrEqual(100);
    expect(long.endsWith('…')).toBe(true);
  });
});
