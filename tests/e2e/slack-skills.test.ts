import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../fakes/wait-for.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { tempSkillsDir, writeSkill } from '../fixtures/skill-folders.js';
import { startErrand, type Errand } from './slack-harness.js';

const GENERAL = 'C0GENERAL';
const RANDOM = 'C0RANDOM01';
const ALICE = 'U0ALICE01';
const ADMIN = 'U0ADMIN01';

let e: Errand | null = null;
let root: string | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
  if (root) rmSync(root, { recursive: true, force: true });
  root = null;
});

/** The ephemeral answer to a slash command, as Slack shows it. */
const replyTo = async (s: Errand['slack'], sent: { responseId: string }) =>
  (await waitFor(() => s.responses.find((r) => r.id === sent.responseId), 5000, 'the private answer'))!.body as {
    text: string;
  };
const homeText = (user: string) => JSON.stringify(e!.slack.homeOf(user)?.view.blocks ?? []);

describe('/skills and the App Home on Slack, end to end', () => {
  it('admins enable a skill with /skills enable; everyone sees it in /skills and on the Home; others are refused privately', async () => {
    root = tempSkillsDir();
    writeSkill(root, 'release-notes', { description: 'Write the release notes from merged pull requests.' });
    writeSkill(root, 'standup', { description: 'Run the standup.' });
    writeSkill(root, 'broken', { skillMd: 'no front matter' });
    e = await startErrand({
      env: {
        SKILLS_DIR: root,
        ...errandFileEnv({ access: { admins: [`slack:${ADMIN}`] }, channels: { [`slack:${RANDOM}`]: {} } }),
      },
    });
    const s = e.slack;

    expect((await replyTo(s, await s.slashCommand({ command: '/skills', user: ALICE, channel: GENERAL }))).text).toBe(
      'No skills are enabled in this channel.',
    );
    const refused = await replyTo(
      s,
      await s.slashCommand({ command: '/skills', text: 'enable release-notes', user: ALICE, channel: GENERAL }),
    );
    expect(refused.text).toMatch(/^Only Errand admins may enable or disable skills/);

    const admins = await replyTo(s, await s.slashCommand({ command: '/skills', user: ADMIN, channel: GENERAL }));
    expect(admins.text).toMatch(
      /Not enabled here.*\n• `release-notes` — Write the release notes from merged pull requests\. · `\/skills enable release-notes` · pin: `"release-notes": "sha256:[0-9a-f]{64}"`/,
    );
    expect(admins.text).toMatch(/Malformed — skipped\*\n• `broken` — SKILL.md must start with YAML front matter/);

    const enabled = await replyTo(
      s,
      await s.slashCommand({ command: '/errand-skills', text: 'enable release-notes', user: ADMIN, channel: GENERAL }),
    );
    expect(enabled.text).toMatch(/^Enabled \*release-notes\* in every channel, pinned to `sha256:[0-9a-f]{64}`/);
    const alices = await replyTo(s, await s.slashCommand({ command: '/skills', user: ALICE, channel: RANDOM }));
    expect(alices.text).toBe(
      '*Skills enabled in this channel* — I open one when a request matches it:\n• `release-notes` — Write the release notes from merged pull requests.',
    );

    await s.openHome(ALICE);
    await waitFor(() => homeText(ALICE).includes('release-notes'), 10_000, "Alice's Home with the skill");
    expect(homeText(ALICE)).toContain('"text":"Skills"');
    expect(homeText(ALICE)).toContain('Write the release notes from merged pull requests.');
    expect(homeText(ALICE)).not.toContain('standup');
    expect(homeText(ALICE)).not.toContain('held back');
    await s.openHome(ADMIN);
    await waitFor(() => homeText(ADMIN).includes('release-notes'), 10_000, "the admin's Home");
    expect(homeText(ADMIN)).toContain(
      '1 skill is held back (changed since approved, malformed or missing): `/skills` says which and why.',
    );
  });
});
