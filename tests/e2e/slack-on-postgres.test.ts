import { afterEach, describe, expect, it } from 'vitest';
import { isPostgresStore } from '../../src/composition/pg-store.js';
import { silentLogger } from '../../src/logger.js';
import { loadMonitoring } from '../../src/metrics/load-monitoring.js';
import { waitFor } from '../fakes/wait-for.js';
import { useStoreKinds } from '../support/store-kinds.js';
import { startRestartableSlackErrand, type RestartableSlackErrand } from './slack-restart-harness.js';
import { texts } from './slack-harness.js';
import { parseExposition } from './prometheus-text.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';
const stores = useStoreKinds();

let e: RestartableSlackErrand | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
});

describe.skipIf(!stores.kinds.includes('postgres'))(
  'Errand on Slack with DATABASE_URL (PostgreSQL), end to end',
  () => {
    it('answers a mention from the PostgreSQL store, and /metrics shows its pool of four connections', async () => {
      const monitoring = await loadMonitoring({ port: 0, host: '127.0.0.1', logger: silentLogger() });
      e = await startRestartableSlackErrand({ env: await stores.env('postgres'), monitoring });
      expect(isPostgresStore(e.app().store)).toBe(true);
      e.model.reply({ text: 'Four.' });
      const { ts } = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'what is 2+2?' });
      await waitFor(() => texts(e!.slack, ts).includes('Four.'));
      const metrics = parseExposition(await (await fetch(`http://127.0.0.1:${monitoring.port()}/metrics`)).text());
      expect(metrics.value('errand_db_pool_size')).toBe(4);
      const busy = metrics.value('errand_db_pool_connections', { state: 'busy' })!;
      const idle = metrics.value('errand_db_pool_connections', { state: 'idle' })!;
      expect(idle).toBeGreaterThanOrEqual(1);
      expect(busy + idle).toBeLessThanOrEqual(4);
      expect(metrics.value('errand_db_pool_waiting')).toBe(0);
      expect(metrics.types.get('errand_db_pool_waits_total')).toBe('counter');
      expect(metrics.value('errand_db_pool_wait_seconds_total')).toBeGreaterThanOrEqual(0);
    });

    it('keeps a question waiting across a restart and resumes with the answer given after it', async () => {
      e = await startRestartableSlackErrand({ env: await stores.env('postgres') });
      e.model.reply(
        { toolCalls: [{ name: 'ask_user', arguments: { question: 'Which format?', options: ['PDF', 'Markdown'] } }] },
        { text: 'Markdown it is.' },
      );
      const { ts } = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'write the report' });
      await waitFor(() => e!.slack.messages(CHANNEL, ts).some((m) => m.text.includes('Which format?')));
      await e.app().coordinator.idle();
      await e.stop();
      await e.start();
      await e.slack.userMessage({ user: ALICE, channel: CHANNEL, text: 'markdown please', threadTs: ts });
      await waitFor(() => texts(e!.slack, ts).includes('Markdown it is.'), 20_000, 'the answer after the restart');
      expect(JSON.stringify(e.model.requests[1]!.messages)).toContain('markdown please');
      expect(texts(e.slack, ts).filter((t) => t === 'Markdown it is.')).toHaveLength(1);
    });

    it('/memory forget with an id past the database column answers that there is no such memory (no integer overflow)', async () => {
      e = await startRestartableSlackErrand({ env: await stores.env('postgres') });
      const r = await e.slack.slashCommand({
        command: '/memory',
        text: 'forget 99999999999',
        user: ALICE,
        channel: CHANNEL,
      });
      expect(r.status).toBe(200);
      expect((JSON.parse(r.body) as { text: string }).text).toBe(
        "There is no memory #99999999999 that you can see here (yours, or this channel's). `/memory` lists them.",
      );
    });

    it('runs a schedule once when it comes due', async () => {
      e = await startRestartableSlackErrand({ env: await stores.env('postgres') });
      const at = new Date(e.clock.now() + 60 * 60_000).toISOString();
      e.model.reply(
        {
          toolCalls: [
            {
              name: 'schedule_prompt',
              arguments: { prompt: 'summarise the day', kind: 'once', spec: at, timezone: 'UTC' },
            },
          ],
        },
        { text: 'Scheduled for in an hour.' },
        { text: 'Here is the summary.' },
      );
      const { ts } = await e.slack.mention({ user: ALICE, channel: CHANNEL, text: 'in an hour, summarise the day' });
      await waitFor(() => texts(e!.slack, ts).includes('Scheduled for in an hour.'));
      await e.app().coordinator.idle();
      e.clock.advance(60 * 60_000 + 1000);
      const top = (await waitFor(() =>
        e!.slack
          .messages(CHANNEL, null)
          .find((m) => m.user === e!.slack.botUserId && m.text.includes('summarise the day')),
      ))!;
      await waitFor(() => texts(e!.slack, top.ts).includes('Here is the summary.'));
      const schedules = await e
        .app()
        .store.schedules.listInChannel({ platform: 'slack', workspace: e.slack.teamId, channel: CHANNEL });
      expect(schedules).toMatchObject([{ status: 'completed', runCount: 1 }]);
    });
  },
);
