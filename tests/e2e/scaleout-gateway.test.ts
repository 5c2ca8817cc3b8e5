import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_DISCORD_TOKEN, startFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';
import { lastUserText, startFakeOpenAI, type FakeOpenAI, type FakeStep } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { useTestDatabase } from '../support/test-database.js';
import { startErrandProcess } from './errand-process.js';
import { databaseQuery, keepLogs, noRunLeftWorking, type ClusterProcess } from './kits/scaleout-kit.js';

/**
 * Three real Errand processes (the `npm start` entry, configured by the environment only) on one PostgreSQL
 * database and the fake Discord: one of them holds the gateway (a PostgreSQL advisory lock), and when it dies
 * a survivor takes the lock and connects. Nothing is timed: every wait is generous.
 */

const PROCESSES = 3;
const LEASE_SECONDS = 5;
const db = useTestDatabase();
const query = databaseQuery(db);

/** The process holding the Discord gateway lock on this test's database (its lock connection's name), or null. */
async function gatewayHolder(): Promise<string | null> {
  const rows = await query<{ name: string }>(
    `select a.application_name as name from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'advisory' and l.granted and a.datname = current_database() and a.application_name like 'errand-gateway:%'`,
  );
  if (rows.length > 1) throw new Error(`more than one gateway holder: ${JSON.stringify(rows)}`);
  return rows[0]?.name.slice('errand-gateway:'.length) ?? null;
}

describe.skipIf(db.skip)('three Errand processes on one PostgreSQL database on Discord', () => {
  let discord: FakeDiscord;
  let model: FakeOpenAI;
  let dir: string;
  const processes: ClusterProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'errand-scaleout-discord-'));
    discord = await startFakeDiscord();
    model = await startFakeOpenAI();
    for (let i = 1; i <= PROCESSES; i++) {
      const id = `discord-${i}`;
      const errand = startErrandProcess({
        DISCORD_TOKEN: FAKE_DISCORD_TOKEN,
        DISCORD_API_URL: discord.apiUrl,
        DISCORD_GUILD_ID: discord.guildId,
        OPENAI_BASE_URL: model.baseUrl,
        OPENAI_API_KEY: 'test-key',
        DATABASE_URL: db.url,
        DATABASE_PATH: join(dir, `unused-${i}.db`),
        ERRAND_PROCESS_ID: id,
        RUN_LEASE_SECONDS: String(LEASE_SECONDS),
        GATEWAY_LOCK_RETRY_SECONDS: '1',
      });
      processes.push({ id, url: '', errand });
    }
    await waitFor(
      async () => {
        const dead = processes.find((p) => p.errand.child.exitCode !== null);
        if (dead) throw new Error(`${dead.id} exited at start:\n${dead.errand.output()}`);
        return discord.stats.identifies > 0 && (await gatewayHolder()) !== null;
      },
      90_000,
      'one process to hold the gateway and connect',
    );
  }, 120_000);

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.errand.kill()));
    keepLogs('discord', processes);
    await discord?.close();
    await model?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the gateway moves to a survivor when its holder is SIGKILLed, and a new mention is answered once', async () => {
    model.respondWith((request): FakeStep => ({
      text: /second/.test(lastUserText(request)) ? 'Second answer.' : 'First answer.',
    }));
    const first = discord.userMessage(discord.general.id, `<@${discord.bot.id}> first question`);
    await waitFor(
      () => discord.botMessagesIn(first.id).some((m) => m.content === 'First answer.'),
      30_000,
      'the first answer',
    );

    const holder = await gatewayHolder();
    const victim = processes.find((p) => p.id === holder);
    expect(victim, `gateway holder ${holder}`).toBeDefined();
    const connects = discord.stats.identifies + discord.stats.resumes;
    await victim!.errand.kill();
    const survivor = await waitFor(
      async () => {
        const now = await gatewayHolder();
        return now !== null && now !== holder && discord.stats.identifies + discord.stats.resumes > connects
          ? now
          : null;
      },
      45_000,
      'a surviving process to take the gateway and connect',
    );
    expect(processes.map((p) => p.id)).toContain(survivor);

    const second = discord.userMessage(discord.general.id, `<@${discord.bot.id}> second question`);
    await waitFor(
      () => discord.botMessagesIn(second.id).some((m) => m.content === 'Second answer.'),
      30_000,
      'the answer after the move',
    );
    await noRunLeftWorking(query, processes);
    const texts = discord.botMessagesIn(second.id).map((m) => m.content);
    expect(
      texts.filter((t) => t === 'Second answer.'),
      JSON.stringify(texts),
    ).toHaveLength(1);
    const firstTexts = discord.botMessagesIn(first.id).map((m) => m.content);
    expect(
      firstTexts.filter((t) => t === 'First answer.'),
      `after the move: ${JSON.stringify(firstTexts)}; model calls ${model.requests.length}`,
    ).toHaveLength(1);
  }, 120_000);
});
