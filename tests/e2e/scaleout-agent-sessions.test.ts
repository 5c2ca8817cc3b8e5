import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastUserText, startFakeOpenAI, type FakeOpenAI, type FakeStep } from '../fakes/fake-openai.js';
import { FakeSlack } from '../fakes/fake-slack.js';
import { waitFor } from '../fakes/wait-for.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { useTestDatabase } from '../support/test-database.js';
import { databaseQuery, keepLogs, outputsOf, startSlackCluster, type ClusterProcess } from './kits/scaleout-kit.js';

/*
 * Slack's Stop on an agent session across processes: two real Errand processes (the `npm start` entry) share one
 * PostgreSQL database; the run works in A while Slack delivers the Stop to B, as a load balancer may. Then A dies
 * in the middle of a run and B takes it over: the session is never left processing.
 */

const ALICE = 'U0ALICE01';
const BOB = 'U0BOB0001';
const LONG = 'This answer is long and slow to arrive. '.repeat(30);
const db = useTestDatabase();
const query = databaseQuery(db);

describe.skipIf(db.skip)(
  "Slack's Stop on an agent session, across two Errand processes on one PostgreSQL database",
  () => {
    let slack: FakeSlack;
    let model: FakeOpenAI;
    let dir: string;
    let processes: ClusterProcess[] = [];
    const [a, b] = [() => processes[0]!, () => processes[1]!];
    const deliverTo = (p: ClusterProcess) => slack.useHttpReceiver(p.url);
    const taskOf = async (channel: string) =>
      (
        await query<{ status: string }>(
          `select status from tasks where conversation_id like $1 order by id desc limit 1`,
          [`%:${channel}:%`],
        )
      )[0]?.status;
    const ownerOfRunIn = async (channel: string) =>
      (
        await query<{ owner: string | null }>(
          `select r.owner from runs r where r.status = 'running' and r.conversation_id like $1`,
          [`%:${channel}:%`],
        )
      )[0]?.owner ?? null;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'errand-scaleout-sessions-'));
      slack = await FakeSlack.start({ rateLimit: null });
      model = await startFakeOpenAI();
      model.streamPace({ chunkChars: 30, chunkDelayMs: 60 });
      model.respondWith((request): FakeStep =>
        lastUserText(request).includes('the one that hangs') &&
        model.requests.filter((r) => lastUserText(r).includes('the one that hangs')).length === 1
          ? { hang: true }
          : { text: LONG },
      );
      processes = await startSlackCluster({
        ids: ['errand-a', 'errand-b'],
        slack,
        model,
        db,
        dir,
        env: {
          RUN_LEASE_SECONDS: '5',
          LOG_LEVEL: 'warn',
          ...errandFileEnv({ access: { admins: ['slack:U0ADMIN01'] } }),
        },
      });
    }, 120_000);

    afterAll(async () => {
      await Promise.all(processes.map((p) => p.errand.kill()));
      keepLogs('agent-sessions', processes);
      await slack?.close();
      await model?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /** Alice asks in `channel` through A; resolves once A runs it and its answer streams. */
    async function workingOnA(channel: string): Promise<string> {
      deliverTo(a());
      const { ts } = await slack.mention({ user: ALICE, channel, text: `write slowly in ${channel}` });
      await waitFor(
        async () =>
          (await ownerOfRunIn(channel)) === a().id &&
          slack.messages(channel, ts).some((m) => m.streaming) &&
          slack.agentSession(channel, ts)?.status === 'processing',
        30_000,
        'A to stream the answer',
      );
      return ts;
    }

    it("the principal's Stop reaching B stops the run A executes: the model request is cut, the thread told, the session active", async () => {
      const channel = 'C0SESSSTOP';
      const ts = await workingOnA(channel);
      const request = model.requests.at(-1)!;
      deliverTo(b());
      const pressed = Date.now();
      await slack.stopAgentSession({ user: ALICE, channel, threadTs: ts });
      await waitFor(
        async () => request.aborted && (await taskOf(channel)) === 'cancelled',
        10_000,
        'the run to stop in A',
      );
      console.info(
        `slack session stop across processes: run cancelled and model request cut in A ${Date.now() - pressed} ms after Slack's Stop reached B`,
      );
      await waitFor(
        () => slack.botTexts(channel, ts).some((t) => t.startsWith('⏹️ Stopped') && t.includes(`<@${ALICE}>`)),
        10_000,
        'the thread to be told',
      );
      await waitFor(() => slack.agentSession(channel, ts)?.status === 'active', 10_000, 'the session to be active');
      expect(slack.sessionStatuses(channel, ts)).toEqual(['processing', 'active']);
      expect(slack.botTexts(channel, ts).filter((t) => t.startsWith('This answer'))).toHaveLength(1);
    }, 60_000);

    it("anyone else's Stop reaching B changes nothing: the run goes on in A and answers, then the session is active", async () => {
      const channel = 'C0SESSBOB1';
      const ts = await workingOnA(channel);
      deliverTo(b());
      await slack.stopAgentSession({ user: BOB, channel, threadTs: ts });
      await waitFor(
        () => slack.ephemerals.some((n) => n.user === BOB && n.channel === channel),
        10_000,
        'Bob to be told privately',
      );
      expect(await taskOf(channel)).toBe('in_progress');
      await waitFor(
        () => slack.botTexts(channel, ts).some((t) => t.trim() === LONG.trim()),
        30_000,
        'the whole answer',
      );
      await waitFor(() => slack.agentSession(channel, ts)?.status === 'active', 10_000, 'the session to be active');
      await waitFor(async () => (await taskOf(channel)) === 'completed', 10_000, 'the run to be completed');
      expect(slack.sessionStatuses(channel, ts)).toEqual(['processing', 'active']);
      expect(slack.botTexts(channel, ts).some((t) => t.startsWith('⏹️'))).toBe(false);
    }, 60_000);

    it('when A dies in the middle of a run, B takes it over and the session ends active, not processing', async () => {
      const channel = 'C0SESSKILL';
      deliverTo(a());
      const { ts } = await slack.mention({ user: ALICE, channel, text: 'the one that hangs' });
      await waitFor(
        async () =>
          (await ownerOfRunIn(channel)) === a().id &&
          model.hanging() === 1 &&
          slack.agentSession(channel, ts)?.status === 'processing',
        30_000,
        'A at work',
      );
      deliverTo(b());
      await a().errand.kill();
      await waitFor(
        () => slack.botTexts(channel, ts).some((t) => t.trim() === LONG.trim()),
        45_000,
        `B to answer after taking the run over\n${outputsOf(processes)}`,
      );
      await waitFor(() => slack.agentSession(channel, ts)?.status === 'active', 10_000, 'the session to be active');
      expect(slack.botTexts(channel, ts).filter((t) => t.includes('I was restarted while working'))).toHaveLength(1);
    }, 90_000);
  },
);
