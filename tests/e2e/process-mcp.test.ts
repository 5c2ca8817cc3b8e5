import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord, type FakeMessage } from '../fakes/fake-discord.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { stdioFixtureArgs } from '../support/errand-entry.js';
import { processGone } from '../fixtures/mcp/mcp-test-kit.js';
import { discordEnv, startErrandProcess, type ErrandProcess } from './errand-process.js';
import { count, writeStep } from './mcp-e2e-kit.js';

let discord: FakeDiscord;
let model: FakeOpenAI;
let dir: string;
let eventsPath: string;
let errand: ErrandProcess | null = null;
const output = () => errand?.output() ?? '';

/** Pids whose parent is `pid` (read from /proc, as `ps --ppid` would). */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

/** A process's command line ('' once it has gone). */
function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** The errand.json a user would write: the server block as other MCP clients take it, its secret from the environment. */
function writeErrandFile(): string {
  const path = join(dir, 'errand.json');
  const file = {
    mcpServers: {
      notes: {
        command: process.execPath,
        args: stdioFixtureArgs(),
        env: { MCP_FIXTURE_EVENTS: '${FIXTURE_EVENTS_FILE}' },
      },
    },
  };
  writeFileSync(path, JSON.stringify(file, null, 2));
  return path;
}

/** Starts Errand's real entry point as its own process, configured only by the environment and errand.json. */
function startErrand(configPath: string): ErrandProcess {
  return startErrandProcess({
    ...discordEnv(discord, model, dir),
    ERRAND_CONFIG: configPath,
    FIXTURE_EVENTS_FILE: eventsPath,
  });
}

/** The message id the waiting run recorded for its approval post (what a decision after the restart edits). */
function recordedQuestionMessage(): string | null {
  const db = new Database(join(dir, 'errand.db'), { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare("select json_extract(question, '$.messageId') as id from runs where status = 'waiting_user'")
      .get() as { id: string | null } | undefined;
    return row?.id ?? null;
  } finally {
    db.close();
  }
}

const events = () => {
  try {
    return readFileSync(eventsPath, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
};

/** Waits until Errand connected to the gateway and started its MCP server; returns the server's pid. */
async function started(p: ChildProcess, identifiesBefore: number): Promise<number> {
  await waitFor(
    () => discord.stats.identifies > identifiesBefore,
    30_000,
    `Errand to connect to the gateway (output: ${output()})`,
  );
  const servers = () => childrenOf(p.pid!).filter((c) => cmdline(c).includes('stdio-fixture-server'));
  const pid = await waitFor(
    () => (servers().length === 1 ? servers()[0] : undefined),
    10_000,
    `the MCP server process (children: ${childrenOf(p.pid!).map(cmdline).join('; ')}; output: ${output()})`,
  );
  return pid!;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'errand-proc-mcp-'));
  eventsPath = join(dir, 'fixture-events.log');
  discord = await startFakeDiscord();
  model = await startFakeOpenAI();
});

afterAll(async () => {
  await errand?.kill();
  await discord.close();
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the Errand process with an MCP server from errand.json (fake Discord)', () => {
  it('an approval survives SIGKILL: after the restart "allow" runs the tool exactly once; SIGTERM leaves no MCP server behind', async () => {
    const config = writeErrandFile();
    errand = startErrand(config);
    const firstServer = await started(errand.child, 0);
    model.reply(writeStep('survives'), { text: 'Saved after the restart.' });
    const msg = discord.userMessage(discord.general.id, `<@${discord.bot.id}> save the plan "survives"`);
    const approval = (await waitFor(
      () => discord.botMessagesIn(msg.id).find((m) => m.content.includes('Approval needed') && m.components.length > 0),
      15_000,
      `the approval post (output: ${output()})`,
    )) as FakeMessage;
    expect(approval.content).toContain('notes__write_note');
    // The post is visible a moment before Errand has stored its id; kill after that, as a person would click later.
    await waitFor(() => recordedQuestionMessage() === approval.id, 10_000, 'the approval post id to be stored');

    await errand.kill();
    await waitFor(
      () => processGone(firstServer),
      10_000,
      'the old MCP server to exit once Errand died (its stdin closed)',
    );

    const identifies = discord.stats.identifies;
    errand = startErrand(config);
    const secondServer = await started(errand.child, identifies);
    expect(secondServer).not.toBe(firstServer);
    discord.userMessage(msg.id, 'allow');
    await waitFor(
      () => discord.botMessagesIn(msg.id).some((m) => m.content === 'Saved after the restart.'),
      15_000,
      `the answer after the restart (output: ${output()})`,
    );
    expect(count(events(), 'wrote plan=survives')).toBe(1);
    await waitFor(
      () => /✅ Allowed once by <@\d+>\.$/.test(discord.messages.get(approval.id)!.content),
      5000,
      `the decision on the approval post (output: ${output()})`,
    );

    errand.child.kill('SIGTERM');
    expect(await errand.exited()).toBe(0);
    expect(processGone(secondServer)).toBe(true);
    expect(count(events(), 'wrote plan=survives')).toBe(1);
  });
});
