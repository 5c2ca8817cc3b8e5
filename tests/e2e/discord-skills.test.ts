import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { tempSkillsDir, writeSkill } from '../fixtures/skill-folders.js';
import { startDiscordErrand, until, type DiscordErrand } from './discord-harness.js';

let e: DiscordErrand | null = null;
let root: string | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
  if (root) rmSync(root, { recursive: true, force: true });
  root = null;
});

describe('/skills on Discord', () => {
  it('lists the skills enabled here, and its enable and disable options do what /skills enable|disable do', async () => {
    root = tempSkillsDir();
    writeSkill(root, 'bug-triage', { description: 'Label and route a bug report.' });
    e = await startDiscordErrand({ SKILLS_DIR: root });
    const d = e.discord;
    const ask = async (options: { name: string; type: number; value: string }[] = []) => {
      const sent = d.slashCommand('skills', d.general.id, options);
      // An answer slower than the adapter's budget comes as a deferral edited afterwards: wait for its text.
      await until(() => (sent.responses[0]?.content ?? '') !== '', 10_000);
      return sent.responses[0]!;
    };
    expect(await ask()).toMatchObject({
      ephemeral: true,
      content: expect.stringContaining('No skills are enabled in this channel.'),
    });
    expect((await ask([{ name: 'enable', type: 3, value: 'bug-triage' }])).content).toMatch(
      /^Enabled \*\*bug-triage\*\* in every channel/,
    );
    expect((await ask()).content).toContain('• `bug-triage` — Label and route a bug report.');
    expect((await ask([{ name: 'disable', type: 3, value: 'bug-triage' }])).content).toMatch(
      /^Disabled \*\*bug-triage\*\*/,
    );
    expect((await ask()).content).toContain('No skills are enabled in this channel.');
  });
});
