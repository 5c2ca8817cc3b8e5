import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES } from '../../src/chat/inbound.js';

const manifest = readFileSync(join(import.meta.dirname, '../../adapters/slack/manifest.yaml'), 'utf8');

describe('Slack app manifest', () => {
  it('declares every slash command the adapter handles', () => {
    for (const name of COMMAND_NAMES) expect(manifest).toMatch(new RegExp(`- command: /${name}\\n`));
  });

  it('subscribes to the events and grants the scopes the adapter relies on', () => {
    for (const event of ['app_mention', 'message.channels', 'message.groups', 'message.im', 'message.mpim'])
      expect(manifest).toMatch(new RegExp(`- ${event.replace('.', '\\.')}\\n`));
    for (const scope of [
      'app_mentions:read',
      'channels:history',
      'groups:history',
      'im:history',
      'chat:write',
      'reactions:write',
      'users:read',
      'files:read',
      'commands',
    ]) {
      expect(manifest).toMatch(new RegExp(`- ${scope}\\s`));
    }
    expect(manifest).toMatch(/interactivity:\n(\s+#.*\n)*\s+is_enabled: true/);
    expect(manifest).toMatch(/socket_mode_enabled: true/);
  });

  it('enables the Home tab and subscribes to app_home_opened, with the scopes to read who is in which channel', () => {
    expect(manifest).toMatch(/app_home:\n(\s+#.*\n)*\s+home_tab_enabled: true/);
    expect(manifest).toMatch(/- app_home_opened\n/);
    for (const scope of ['channels:read', 'groups:read']) expect(manifest).toMatch(new RegExp(`- ${scope}\\s`));
  });

  it("declares Errand an agent (Slack's agent experience) and subscribes to Slack's Stop on its sessions", () => {
    expect(manifest).toMatch(/\n {2}agent_view:\n(\s+#.*\n)*\s+agent_description: \S/);
    expect(manifest).toMatch(/agent_view:\n(.*\n)*?\s+suggested_prompts:\n\s+- title: \S.*\n\s+message: \S/);
    expect(manifest).toMatch(/- agent_session_stopped\s/);
    // agents.sessions.setStatus and agents.sessions.rename take the scope Errand has for posting.
    expect(manifest).toMatch(/- chat:write\s/);
  });

  it('enables the assistant view with a description and suggested prompts, and its scope and events', () => {
    expect(manifest).toMatch(/assistant_view:\n(\s+#.*\n)*\s+assistant_description: \S/);
    expect(manifest).toMatch(/suggested_prompts:\n\s+- title: \S.*\n\s+message: \S/);
    expect(manifest).toMatch(/- assistant:write\s/);
    for (const event of ['assistant_thread_started', 'assistant_thread_context_changed'])
      expect(manifest).toMatch(new RegExp(`- ${event}\\s`));
  });
});
