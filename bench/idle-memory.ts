import { execFileSync, spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { startFakeOpenAI } from '../tests/fakes/fake-openai.js';
import { FakeSlack } from '../tests/fakes/fake-slack.js';
import type { Benchmark } from './benchmark.js';
import { compiledBenchFile } from './compiled.js';
import { startCommand, type StartCommand } from './start-command.js';

const MB = 1024 * 1024;
const CONVERSATIONS = Number(process.env.CONVERSATIONS ?? 10_000);
/** Mentions in flight at once (each in its own new thread, over 100 channels). */
const BATCH = 50;
const USER = 'U0BENCH01';

type ChildReport = {
  type: 'idle';
  afterLoad: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  /** Anonymous vs file-backed resident bytes, where the platform tells (Linux). */
  resident: { anon: number; file: number; mallocMain: number } | null;
};

/** RSS (MB) of a fresh node, started like `npm start`, after importing the app and these compiled modules. */
function importedRss(start: StartCommand, modules: string[]): number {
  const urls = ['src/app.js', ...modules].map((m) => pathToFileURL(compiledBenchFile(m)).href);
  const script = `for (const u of ${JSON.stringify(urls)}) await import(u); await new Promise((r) => setTimeout(r, 500)); process.stdout.write(String(process.memoryUsage.rss()));`;
  const out = execFileSync(process.execPath, [...start.flags, '--input-type=module', '-e', script], {
    env: { ...process.env, ...start.env },
  });
  return Number(out.toString('utf8')) / MB;
}

/**
 * RSS of an Errand process with the Slack adapter (compiled JS, started like `npm start`) after
 * 10 000 conversations were each answered once over the fake Slack (twins, echoes and all) and
 * then 30 s of quiet. The fake and the model live in this process, so they do not count.
 */
export const benchmark: Benchmark = {
  name: 'idle-memory',
  figures: ['idle_rss_mb'],
  async run() {
    const model = await startFakeOpenAI();
    const fake = await FakeSlack.start({ rateLimit: null });
    try {
      const start = startCommand();
      const child = spawn(process.execPath, [...start.flags, compiledBenchFile('bench/idle-memory-child.js')], {
        env: {
          ...process.env,
          ...start.env,
          MODEL_URL: model.baseUrl,
          SLACK_API_URL: fake.apiUrl,
          SIGNING_SECRET: fake.signingSecret,
        },
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      const next = () =>
        new Promise<Record<string, unknown>>((resolve) =>
          child.once('message', (m) => resolve(m as Record<string, unknown>)),
        );
      const ready = await Promise.race([
        next(),
        exited.then((code) => Promise.reject(new Error(`idle-memory child exited with ${code}`))),
      ]);
      fake.useHttpReceiver(`http://127.0.0.1:${String(ready.port)}/slack/events`);
      let replies = 0;
      fake.onCall = (call) => {
        // An answer is a threaded post, or (streaming, the default) a finished stream.
        if (
          call.status === 200 &&
          ((call.method === 'chat.postMessage' && call.args.thread_ts !== undefined) ||
            call.method === 'chat.stopStream')
        )
          replies++;
      };
      for (let i = 0; i < CONVERSATIONS; i += BATCH) {
        const n = Math.min(BATCH, CONVERSATIONS - i);
        await Promise.all(
          Array.from({ length: n }, (_, j) =>
            fake.mention({
              user: USER,
              channel: `C0MEM${String((i + j) % 100).padStart(4, '0')}`,
              text: `hello ${i + j}`,
              order: 'together',
            }),
          ),
        );
        while (replies < i + n) await new Promise((r) => setTimeout(r, 5));
      }
      await fake.settle();
      const report = next() as Promise<ChildReport>;
      child.send({ type: 'loaded' });
      const r = await report;
      await exited;
      const slackOnly = importedRss(start, ['adapters/slack/create-slack-adapter.js']);
      const both = importedRss(start, [
        'adapters/slack/create-slack-adapter.js',
        'adapters/discord/create-discord-adapter.js',
      ]);
      const kinds = r.resident
        ? `: anonymous ${(r.resident.anon / MB).toFixed(1)} MB (of it the main malloc heap ${(r.resident.mallocMain / MB).toFixed(1)} MB), file-backed ${(r.resident.file / MB).toFixed(1)} MB (the node binary and libraries)`
        : '';
      return [
        {
          name: 'idle_rss_mb',
          value: r.rss / MB,
          unit: 'MB',
          detail: `node ${[...Object.entries(start.env).map(([k, v]) => `${k}=${v}`), ...start.flags].join(' ') || '(no flags)'}; Slack adapter loaded, ${replies} conversations answered over the fake Slack, then 30 s of quiet (target < 100); at start ${(Number(ready.rss) / MB).toFixed(1)} MB, right after the load ${(r.afterLoad / MB).toFixed(1)} MB; at idle${kinds}; JS heap ${(r.heapUsed / MB).toFixed(1)} of ${(r.heapTotal / MB).toFixed(1)} MB, external ${(r.external / MB).toFixed(1)} MB (array buffers ${(r.arrayBuffers / MB).toFixed(1)}); a fresh process that only imports the app and the Slack adapter: ${slackOnly.toFixed(1)} MB, with the Discord adapter too: ${both.toFixed(1)} MB (discord.js adds ${(both - slackOnly).toFixed(1)} MB)`,
        },
      ];
    } finally {
      await fake.close();
      await model.close();
    }
  },
};
