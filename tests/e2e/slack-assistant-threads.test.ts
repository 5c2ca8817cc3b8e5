import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SUGGESTED_PROMPTS } from '../../src/settings/slack-settings.js';
import { waitFor } from '../fakes/wait-for.js';
import { startErrand, texts, type Errand } from './slack-harness.js';

const DM = 'D0ALICE01';
const ALICE = 'U0ALICE01';

let e: Errand | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
});

describe("Slack's assistant view (Agents & AI Apps), end to end through Bolt", () => {
  it('a new assistant thread gets the default suggested prompts', async () => {
    e = await startErrand();
    const s = e.slack;
    const { threadTs } = await s.assistantThreadStarted({ user: ALICE, channel: DM, contextChannel: 'C0GENERAL' });
    await waitFor(() => s.callsOf('assistant.threads.setSuggestedPrompts').length === 1);
    const call = s.callsOf('assistant.threads.setSuggestedPrompts')[0]!;
    expect(call.error).toBeNull();
    expect(call.args).toMatchObject({ channel_id: DM, thread_ts: threadTs });
    expect(call.args.prompts).toEqual(DEFAULT_SUGGESTED_PROMPTS.map((p) => ({ title: p.title, message: p.message })));
  });

  it('offers the prompts of the configuration file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'errand-assistant-'));
    const prompts = [{ title: 'Stand-up', message: 'Summarise yesterday in #eng.' }];
    writeFileSync(join(dir, 'errand.json'), JSON.stringify({ slack: { suggestedPrompts: prompts } }));
    e = await startErrand({ env: { ERRAND_CONFIG: join(dir, 'errand.json') } });
    const s = e.slack;
    await s.assistantThreadStarted({ user: ALICE, channel: DM });
    await waitFor(() => s.callsOf('assistant.threads.setSuggestedPrompts').length === 1);
    expect(s.callsOf('assistant.threads.setSuggestedPrompts')[0]!.args.prompts).toEqual(prompts);
  });

  it('a request in the thread is answered there, titles the thread, and the status says "is thinking…" until it is cleared', async () => {
    e = await startErrand();
    const { slack: s, model } = e;
    model.reply({ text: 'Here is the plan.' }, { text: 'Sure.' });
    const { threadTs } = await s.assistantThreadStarted({ user: ALICE, channel: DM });
    await s.userMessage({ user: ALICE, channel: DM, threadTs, text: 'Plan the release for Friday\nwith a checklist' });
    await waitFor(() => texts(s, threadTs, DM).includes('Here is the plan.'));
    await e.app.coordinator.idle();
    await waitFor(() => s.assistantStatuses(DM, threadTs).at(-1) === '', 10_000);
    expect(s.assistantStatuses(DM, threadTs)).toContain('is thinking…');
    expect(s.callsOf('assistant.threads.setTitle').map((c) => c.args)).toEqual([
      { channel_id: DM, thread_ts: threadTs, title: 'Plan the release for Friday' },
    ]);
    // No reaction or Working… notice in an assistant thread: the status line says it.
    expect(s.callsOf('reactions.add')).toEqual([]);
    expect(s.botTexts(DM, threadTs).some((t) => t.startsWith('⏳ Working'))).toBe(false);

    // The second request does not rename the thread.
    await s.userMessage({ user: ALICE, channel: DM, threadTs, text: 'and add a rollback step' });
    await waitFor(() => texts(s, threadTs, DM).includes('Sure.'));
    await e.app.coordinator.idle();
    expect(s.callsOf('assistant.threads.setTitle')).toHaveLength(1);
    expect(s.calls.filter((c) => c.method.startsWith('assistant.') && c.error !== null)).toEqual([]);
  });

  it('a run that reads the thread shows "is reading this thread…", a question shows "is waiting for your answer"', async () => {
    e = await startErrand();
    const { slack: s, model } = e;
    model.reply(
      { toolCalls: [{ name: 'read_thread', arguments: {} }] },
      { toolCalls: [{ name: 'ask_user', arguments: { question: 'Which part?' } }] },
      { text: 'Done.' },
    );
    const { threadTs } = await s.assistantThreadStarted({ user: ALICE, channel: DM });
    await s.userMessage({ user: ALICE, channel: DM, threadTs, text: 'summarise this thread' });
    await waitFor(() => texts(s, threadTs, DM).some((t) => t.includes('Which part?')));
    await e.app.coordinator.idle();
    await waitFor(() => s.assistantStatuses(DM, threadTs).at(-1) === '', 10_000);
    const statuses = s.assistantStatuses(DM, threadTs);
    expect(statuses).toContain('is reading this thread…');
    expect(statuses.indexOf('is thinking…')).toBeLessThan(statuses.indexOf('is reading this thread…'));
    expect(statuses).toContain('is waiting for your answer');

    await s.userMessage({ user: ALICE, channel: DM, threadTs, text: 'the start' });
    await waitFor(() => texts(s, threadTs, DM).includes('Done.'));
    await e.app.coordinator.idle();
    await waitFor(() => s.assistantStatuses(DM, threadTs).at(-1) === '', 10_000);
  });

  it('any other tool shows its name in the status', async () => {
    e = await startErrand();
    const { slack: s, model } = e;
    model.reply({ toolCalls: [{ name: 'list_tasks', arguments: {} }] }, { text: 'No tasks.' });
    const { threadTs } = await s.assistantThreadStarted({ user: ALICE, channel: DM });
    await s.userMessage({ user: ALICE, channel: DM, threadTs, text: 'what is on my list?' });
    await waitFor(() => texts(s, threadTs, DM).includes('No tasks.'));
    await e.app.coordinator.idle();
    await waitFor(() => s.assistantStatuses(DM, threadTs).at(-1) === '', 10_000);
    expect(s.assistantStatuses(DM, threadTs)).toEqual(['is thinking…', 'is running list_tasks…', 'is thinking…', '']);
  });
});
