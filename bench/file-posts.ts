import { performance } from 'node:perf_hooks';
import { createSlackAdapter } from '../adapters/slack/create-slack-adapter.js';
import type { ConversationRef } from '../src/chat/conversation-ref.js';
import { systemClock } from '../src/clock.js';
import { closeDatabase, openDatabase } from '../src/db/client.js';
import { silentLogger } from '../src/logger.js';
import { createFilesOut } from '../src/outbox/files-out.js';
import { createOutbox } from '../src/outbox/outbox.js';
import { createSqliteStore } from '../src/composition/sqlite-store.js';
import { pngOfSize } from '../tests/e2e/kits/file-output-tool.js';
import { FakeSlack } from '../tests/fakes/fake-slack.js';
import type { Benchmark } from './benchmark.js';
import { median, percentile } from './overhead-figures.js';

const WARMUP = 10;
const POSTS = 100;
const PNG = pngOfSize(100 * 1000);

/**
 * `sandbox_file_post_ms`: one 100 kB PNG a run's code wrote, posted to a Slack thread through FilesOut and the
 * outbox, as run_code posts `/workspace/out/` when a call ends — from the call until the platform has it: the
 * row and its bytes written to SQLite, the poster's turn, `files.getUploadURLExternal`, the bytes POSTed to the
 * upload URL, the file ids recorded, `files.completeUploadExternal` into the thread, the row marked posted and
 * its bytes deleted. The real Web API client against the fake Slack on 127.0.0.1, the channel's pace lifted
 * (Slack's one message a second would be all the figure measured). Target: < 100 ms.
 */
export const benchmark: Benchmark = {
  name: 'file-posts',
  figures: ['sandbox_file_post_ms'],
  async run() {
    const slack = await FakeSlack.start({ rateLimit: null, echo: false });
    const db = openDatabase(':memory:');
    const store = createSqliteStore(db, systemClock);
    const adapter = createSlackAdapter({
      botToken: 'xoxb-bench',
      apiUrl: slack.apiUrl,
      mode: 'http',
      signingSecret: 'bench',
      tuning: { messageRate: { burst: 1000, perSecond: 1000 }, webApiRetries: 0 },
    });
    const outbox = createOutbox({
      store,
      clock: systemClock,
      logger: silentLogger(),
      adapters: new Map([[adapter.platform, adapter]]),
      refOf: (id) => store.conversations.refOf(id),
      onQuestionPosted: async () => undefined,
    });
    const filesOut = createFilesOut({
      posts: outbox,
      filesOf: (p) => (p === adapter.platform ? (adapter.capabilities.files ?? null) : null),
      logger: silentLogger(),
    });
    try {
      await outbox.start();
      const { ts } = slack.postUndelivered({ user: 'U0ALICE01', channel: 'C0GENERAL', text: 'chart it' });
      const thread: ConversationRef = { platform: 'slack', workspace: slack.teamId, channel: 'C0GENERAL', thread: ts };
      await store.conversations.ensure(thread);
      const post = () =>
        filesOut.postFiles(thread, 'bench-run', [{ name: 'chart.png', bytes: PNG, mimeType: 'image/png' }]);
      for (let i = 0; i < WARMUP; i++) await post();
      const times: number[] = [];
      for (let i = 0; i < POSTS; i++) {
        const t0 = performance.now();
        const [result] = await post();
        times.push(performance.now() - t0);
        if (!result?.posted) throw new Error(`the file was not posted: ${JSON.stringify(result)}`);
      }
      const shared = slack.uploads.shared('C0GENERAL', ts).length;
      if (shared !== WARMUP + POSTS) throw new Error(`expected ${WARMUP + POSTS} files in the thread, found ${shared}`);
      return [
        {
          name: 'sandbox_file_post_ms',
          value: median(times),
          unit: 'ms',
          detail: `p50 of ${POSTS} posts of a 100 kB PNG through FilesOut → outbox → Slack's upload API on the fake (p90 ${percentile(times, 90).toFixed(1)} ms); target < 100 ms`,
        },
      ];
    } finally {
      await outbox.stop(1000);
      await adapter.stop().catch(() => undefined);
      closeDatabase(db);
      await slack.close();
    }
  },
};
