import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { FakeSlack, type StoredMessage } from '../fakes/fake-slack.js';
import { waitFor } from '../fakes/wait-for.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { startElicitFixture, type ElicitFixture } from '../fixtures/mcp/elicit-fixture-server.js';
import { useTestDatabase } from '../support/test-database.js';
import { databaseQuery, startSlackCluster, type ClusterProcess } from './kits/scaleout-kit.js';
import { toolResults } from './mcp-e2e-kit.js';
import { buttonsOf } from './slack-harness.js';

/*
 * An MCP server's question answered on another process than the one holding the call: two real Errand processes
 * (the `npm start` entry) share one PostgreSQL database; Slack's deliveries go to A or B as a load balancer might.
 * First the click reaches B while A holds the call (A hears of it by a wake-up); then A is killed while a second
 * question waits, B takes the run over, the question stays open, and answering it on B makes the call again there.
 */

const ALICE = 'U0ALICE01';
const CHANNEL = 'C0ELICIT01';
const db = useTestDatabase();
const query = databaseQuery(db);

describe.skipIf(db.skip)('MCP questions across two Errand processes on one PostgreSQL database', () => {
  let slack: FakeSlack;
  let model: FakeOpenAI;
  let fixture: ElicitFixture;
  let dir: string;
  let processes: ClusterProcess[] = [];
  const receiver = (p: ClusterProcess) => slack.useHttpReceiver(p.url);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'errand-scaleout-elicit-'));
    slack = await FakeSlack.start({ rateLimit: null });
    model = await startFakeOpenAI();
    fixture = await startElicitFixture();
    processes = await startSlackCluster({
      ids: ['errand-a', 'errand-b'],
      slack,
      model,
      db,
      dir,
      env: {
        RUN_LEASE_SECONDS: '5',
        LOG_LEVEL: 'warn',
        ...errandFileEnv({ mcpServers: { diner: { url: fixture.url } } }),
      },
    });
  }, 120_000);

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.errand.kill()));
    await slack?.close();
    await model?.close();
    await fixture?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Alice asks on A; resolves with the thread and its question once posted. */
  async function askOnA(): Promise<{ ts: string; question: StoredMessage }> {
    receiver(processes[0]!);
    const { ts } = await slack.mention({ user: ALICE, channel: CHANNEL, text: 'find me a seat' });
    const question = (await waitFor(
      () =>
        slack
          .messages(CHANNEL, ts)
          .find((m) => m.text.includes('Where would you like to sit?') && buttonsOf(m).length > 0),
      30_000,
      'the question',
    ))!;
    return { ts, question };
  }

  /** Alice answers the question through whichever process Slack delivers to now: Answer, then the modal. */
  async function answer(question: StoredMessage, seating: '0' | '1'): Promise<void> {
    const action = buttonsOf(question).find((b) => b.action_id.endsWith(':answer'))!.action_id;
    await slack.click({ user: ALICE, channel: CHANNEL, messageTs: question.ts, actionId: action });
    const modal = (await waitFor(() => slack.modalOf(ALICE), 30_000, 'the modal'))!;
    await slack.submitView({ user: ALICE, viewId: modal.id, values: { 'field-0': seating } });
  }

  it('answered through B while A holds the call; then A is killed while a question waits, and B carries the run on when it is answered', async () => {
    const [a, b] = processes as [(typeof processes)[0], (typeof processes)[0]];
    model.reply({ toolCalls: [{ name: 'diner__pick_seating', arguments: {} }] }, { text: 'Seated inside.' });
    const first = await askOnA();
    receiver(b);
    await answer(first.question, '0');
    await waitFor(
      () => slack.botTexts(CHANNEL, first.ts).includes('Seated inside.'),
      30_000,
      `the answer from A\n${a.errand.output()}`,
    );
    expect(toolResults(model.requests[1]!).at(-1)).toEqual({
      ok: true,
      content: JSON.stringify({ action: 'accept', content: { seating: 'in' } }),
    });
    await waitFor(
      () => slack.messages(CHANNEL, first.ts).some((m) => m.ts === first.question.ts && m.text.includes('Answered by')),
      30_000,
      'the post edited by A',
    );

    model.reply({ toolCalls: [{ name: 'diner__pick_seating', arguments: {} }] }, { text: 'Seated on the terrace.' });
    const second = await askOnA();
    const asked = fixture.log.length;
    await a.errand.kill();
    // B takes the run over once A's lease lapses (5 s, then B's next look): on a busy machine that and the
    // recovery take well beyond the lease, so the ceiling is the other scale-out files' (a wait ends when it holds).
    await waitFor(
      async () =>
        (await query<{ status: string }>(`select status from runs where status = 'waiting_user'`)).length === 1,
      45_000,
      `the run to wait on B\n${b.errand.output()}`,
    );
    receiver(b);
    await answer(second.question, '1');
    await waitFor(
      () => slack.botTexts(CHANNEL, second.ts).includes('Seated on the terrace.'),
      30_000,
      `the answer from B\n${b.errand.output()}`,
    );
    expect(fixture.log.slice(asked)).toEqual([{ action: 'accept', content: { seating: 'out' } }]);
    expect(toolResults(model.requests[3]!).at(-1)).toEqual({
      ok: true,
      content: JSON.stringify({ action: 'accept', content: { seating: 'out' } }),
    });
    const last = async () =>
      (await query<{ status: string; owner: string | null }>(`select status, owner from runs order by started_at`)).at(
        -1,
      );
    await waitFor(async () => (await last())?.status === 'completed', 30_000, 'the run to be recorded completed');
    expect(await last()).toEqual({ status: 'completed', owner: 'errand-b' });
  }, 180_000);
});
