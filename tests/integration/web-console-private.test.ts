import { afterEach, describe, expect, it } from 'vitest';
import { runFragment } from '../../src/web-console/pages/run-page.js';
import { waitFor } from '../fakes/wait-for.js';
import { startHarness, type Harness } from './harness.js';
import { rememberPrivately } from '../support/private-memory.js';

/*
 * The web console's run timeline (DESIGN.md "The web console": steps, tool calls with arguments, approvals,
 * questions) and "Private stays private in a shared thread": an operator reads a run's steps, but not what only its
 * principal could see — the results of their private sources (a `recall` of their `me` memories) and the text the
 * model wrote from them (an answer held for its owner) — as nobody sees another person's `me` memories.
 */

let h: Harness;
afterEach(async () => h.close());

const ANA = 'U0ANA';
const SECRET = 'Ana locker code is 4711-ZETA';

describe("the web console's run timeline", () => {
  it("shows a private run's steps and tool calls, never its private results nor the answer written from them", async () => {
    h = await startHarness();
    await rememberPrivately(h.app.store.memory, `memory:${ANA}`, SECRET);
    const thread = h.adapter.thread('C1', 'T1');
    h.model.reply(
      { toolCalls: [{ name: 'recall', arguments: { query: 'locker code' } }] },
      { text: 'Your locker code is 4711-ZETA.' },
    );
    await h.adapter.say(thread, 'what is my locker code?', { userId: ANA });
    const conversationId = await h.app.conversations.ensure(thread);
    await waitFor(() => h.adapter.privateChoices.some((c) => c.userId === ANA), 10_000, 'the answer held for Ana');
    await h.app.coordinator.idle();
    const [runId] = (await h.app.store.consoleQueries.recentRuns(null, 10)).map((r) => r.id);
    const run = (await h.app.store.consoleQueries.run(runId!))!;
    const messages = await h.app.store.consoleQueries.runMessages(conversationId, run.id);
    // The run's transcript does hold it (her own later runs read it): the page must leave it out.
    expect(JSON.stringify(messages)).toContain('4711');

    const page = runFragment({ run, messages, approvals: [], trace: null }).toString();
    expect(page).toContain('what is my locker code?');
    expect(page).toContain('recall');
    expect(page).toContain('locker code');
    expect(page).not.toContain('4711');
    expect(page).toContain(`private to ${ANA}`);
  });
});
