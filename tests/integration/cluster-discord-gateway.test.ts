import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createDiscordAdapter,
  discordOptionsFromConfig,
  type DiscordTuning,
} from '../../adapters/discord/create-discord-adapter.js';
import { createApp, type App } from '../../src/app.js';
import type { ChatAdapter } from '../../src/chat/chat-adapter.js';
import { systemClock } from '../../src/clock.js';
import { createClusterChat } from '../../src/cluster/cluster-chat.js';
import { loadConfig } from '../../src/config.js';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { createLogger } from '../../src/logger.js';
import { checkHealth } from '../../src/metrics/health-check.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { FAKE_DISCORD_TOKEN, startFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { TEST_TUNING } from '../e2e/discord-harness.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const logger = createLogger('silent');
const RETRY_MS = 500;
const WAIT_MS = 20_000;
let db: PgDb;
beforeAll(async () => {
  if (!database.skip) db = await openPostgres(database.url, { poolSize: 4 });
});
afterAll(async () => {
  if (!database.skip) await closePostgres(db);
});

interface Member {
  id: string;
  app: App;
  adapter: ChatAdapter;
  stopped: boolean;
  stop(): Promise<void>;
}

let discord: FakeDiscord;
let model: FakeOpenAI;
let dir: string;
const members: Member[] = [];
afterEach(async () => {
  for (const m of members.splice(0)) if (!m.stopped) await m.stop();
  await discord?.close();
  await model?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function startWorld(): Promise<void> {
  dir = mkdtempSync(join(tmpdir(), 'errand-cluster-discord-'));
  discord = await startFakeDiscord({ messageLimit: TEST_TUNING.messageLimit });
  model = await startFakeOpenAI();
}

/** One Errand process: its own runtime, the shared gateway lock and post pacing on PostgreSQL. */
async function startMember(id: string, tuning: DiscordTuning = {}, databaseFile = `${id}.db`): Promise<Member> {
  const config = loadConfig({
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'test-key',
    DATABASE_PATH: join(dir, databaseFile),
    DISCORD_TOKEN: FAKE_DISCORD_TOKEN,
    DISCORD_API_URL: discord.apiUrl,
    DISCORD_GUILD_ID: discord.guildId,
  });
  const cluster = createClusterChat({
    url: database.url,
    db,
    processId: id,
    clock: systemClock,
    logger,
    gatewayRetryMs: RETRY_MS,
  });
  const adapter = createDiscordAdapter({
    ...discordOptionsFromConfig(config),
    tuning: { ...TEST_TUNING, ...tuning },
    gateway: cluster.gateway,
    pacer: cluster.pacer,
  });
  const app = await createApp({ config, adapters: [adapter], clock: new FakeClock(), modelBackoffMs: () => 5 });
  cluster.onGatewayTakenOver(() => void app.catchUp());
  await app.start();
  const member: Member = {
    id,
    app,
    adapter,
    stopped: false,
    async stop() {
      member.stopped = true;
      await app.stop();
    },
  };
  members.push(member);
  return member;
}

const gatewayOf = async (m: Member) =>
  (await checkHealth({ database: m.app.store.probe, adapters: new Map([['discord', m.adapter]]) })).platforms.discord
    ?.gateway;
const answers = (channelId: string, text: string) =>
  discord.botMessagesIn(channelId).filter((m) => m.content === text).length;

async function terminateLockConnectionOf(processId: string): Promise<void> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = $1',
      [`errand-gateway:${processId}`],
    );
  } finally {
    await client.end();
  }
}

describe.skipIf(database.skip)('Discord gateway across processes on PostgreSQL', () => {
  it('two processes open one gateway session; the holder reports held, the other standby, and both are healthy', async () => {
    await startWorld();
    const a = await startMember('proc-a');
    const b = await startMember('proc-b');
    expect(discord.stats.identifies).toBe(1);
    expect(discord.sessionCount()).toBe(1);
    expect(await gatewayOf(a)).toBe('held');
    expect(await gatewayOf(b)).toBe('standby');
    for (const m of [a, b]) {
      const report = await checkHealth({ database: m.app.store.probe, adapters: new Map([['discord', m.adapter]]) });
      expect(report.status).toBe('ok');
    }
    // Slash commands are registered by the holder only.
    expect(discord.callsTo('PUT', /\/commands$/)).toHaveLength(1);

    model.reply({ text: 'Answered once.' });
    const msg = discord.userMessage(discord.general.id, `<@${discord.bot.id}> hello cluster`);
    await waitFor(() => answers(msg.id, 'Answered once.') === 1, WAIT_MS, 'the holder to answer');
    expect(discord.stats.identifies).toBe(1);
  });

  it('when the holder stops, the standby connects within the retry interval and answers the next mention', async () => {
    await startWorld();
    const a = await startMember('proc-a');
    const b = await startMember('proc-b');
    await a.stop();
    await waitFor(
      () => discord.stats.identifies === 2 && discord.sessionCount() === 1,
      WAIT_MS,
      'the standby to connect',
    );
    await waitFor(async () => (await gatewayOf(b)) === 'held', WAIT_MS, 'the standby to report held');

    model.reply({ text: 'Still here.' });
    const msg = discord.userMessage(discord.general.id, `<@${discord.bot.id}> are you there?`);
    await waitFor(() => answers(msg.id, 'Still here.') === 1, WAIT_MS, 'the new holder to answer');
  });

  it("when the holder's lock connection is killed, exactly one process holds the gateway again and mentions are answered once", async () => {
    await startWorld();
    const a = await startMember('proc-a');
    const b = await startMember('proc-b');
    await terminateLockConnectionOf('proc-a');
    await waitFor(() => discord.stats.identifies === 2, WAIT_MS, 'a process to connect the gateway again');
    await waitFor(
      async () =>
        [await gatewayOf(a), await gatewayOf(b)].filter((g) => g === 'held').length === 1 &&
        discord.sessionCount() === 1,
      WAIT_MS,
      'one holder, one session',
    );

    model.reply({ text: 'Once after the takeover.' });
    const msg = discord.userMessage(discord.general.id, `<@${discord.bot.id}> after the takeover`);
    await waitFor(() => answers(msg.id, 'Once after the takeover.') === 1, WAIT_MS, 'the holder to answer');
    await a.app.coordinator.idle();
    await b.app.coordinator.idle();
    expect(answers(msg.id, 'Once after the takeover.')).toBe(1);
    expect(model.requests).toHaveLength(1);
  });

  it('a process that takes the gateway over reads back what was written while nobody held it', async () => {
    await startWorld();
    // One database for both, as on PostgreSQL: the standby knows the holder's conversations.
    const a = await startMember('proc-a', {}, 'shared.db');
    model.reply({ toolCalls: [{ name: 'ask_user', arguments: { question: 'Which format?' } }] });
    const msg = discord.userMessage(discord.general.id, `<@${discord.bot.id}> export the report`);
    await waitFor(
      () => discord.botMessagesIn(msg.id).some((m) => m.content.includes('Which format?')),
      WAIT_MS,
      'the question',
    );
    await a.app.coordinator.idle();
    const b = await startMember('proc-b', {}, 'shared.db');
    await a.stop();

    const identifies = discord.stats.identifies;
    discord.userMessage(msg.id, 'PDF please');
    model.reply({ text: 'Exported as PDF.' });
    await waitFor(
      () => answers(msg.id, 'Exported as PDF.') === 1,
      WAIT_MS,
      'the new holder to resume the run with the answer',
    );
    expect(discord.stats.identifies).toBe(identifies + 1);
    await b.app.coordinator.idle();
    expect(answers(msg.id, 'Exported as PDF.')).toBe(1);
    expect(JSON.stringify(model.requests.at(-1)!.messages.filter((m) => m.role === 'tool'))).toContain('PDF please');
  });

  it("spaces two processes' posts to one channel by the shared interval, the standby posting through REST", async () => {
    await startWorld();
    // One post per 250 ms per channel: each process alone would send its four posts 250 ms apart, side by side with the other's.
    const tuning: DiscordTuning = { messageLimit: { count: 1, windowMs: 250 } };
    const a = await startMember('proc-a', tuning);
    const b = await startMember('proc-b', tuning);
    const channel = { platform: 'discord', workspace: discord.guildId, channel: discord.general.id, thread: null };
    await Promise.all(
      [a, b].flatMap((m) =>
        Array.from({ length: 4 }, (_, i) => m.adapter.postMessage(channel, { text: `${m.id} post ${i}` })),
      ),
    );
    const posts = discord
      .callsTo('POST', new RegExp(`^/channels/${discord.general.id}/messages$`))
      .filter((c) => c.status === 200);
    expect(posts).toHaveLength(8);
    expect(discord.messagesIn(discord.general.id).filter((m) => m.content.startsWith('proc-b'))).toHaveLength(4);
    const times = posts.map((c) => c.at).sort((x, y) => x - y);
    // Eight slots 250 ms apart span 1 750 ms; one interval of slack for a first post that went out late.
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(6 * 250);
    expect(discord.stats.rateLimited).toBe(0);
  });
});
