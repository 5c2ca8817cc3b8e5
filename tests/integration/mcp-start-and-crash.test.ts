import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMcpHub } from '../../src/composition/mcp-hub.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { waitFor } from '../fakes/wait-for.js';
import {
  capturingLogger,
  eventsFile,
  processGone,
  settings,
  slackChannel,
  stdioFixture,
  toolContext,
} from '../fixtures/mcp/mcp-test-kit.js';

const node = process.execPath;

describe('MCP servers that fail to start', () => {
  it('logs each failure with its reason, skips that server and starts the others', async () => {
    const log = capturingLogger();
    const clock = new FakeClock();
    const hub = createMcpHub({
      servers: {
        missing: settings({ command: 'errand-no-such-command-xyz' }),
        dies: settings({
          command: node,
          args: ['-e', "console.error('fatal: GITHUB_TOKEN is not set'); process.exit(1)"],
        }),
        good: stdioFixture({ tools: ['echo'] }),
      },
      logger: log.logger,
      clock,
    });
    try {
      await hub.start();
      const byName = Object.fromEntries(hub.status().map((s) => [s.name, s]));
      expect(byName.missing).toMatchObject({
        state: 'failed',
        reason: 'command not found: "errand-no-such-command-xyz" (check the command and PATH)',
      });
      expect(byName.dies).toMatchObject({
        state: 'failed',
        reason: 'exited with code 1: fatal: GITHUB_TOKEN is not set',
      });
      expect(byName.good).toMatchObject({ state: 'connected', tools: 1 });
      expect(hub.toolsFor(slackChannel).map((t) => t.name)).toEqual(['good__echo']);
      const errors = log.lines.filter((l) => l.level === 50).map((l) => l.msg);
      expect(errors).toEqual(
        expect.arrayContaining([
          expect.stringContaining('"missing" could not start and is skipped: command not found'),
          expect.stringContaining(
            '"dies" could not start and is skipped: exited with code 1: fatal: GITHUB_TOKEN is not set',
          ),
        ]),
      );
    } finally {
      await hub.close();
    }
  });

  it('starts servers in parallel and gives up on one that never answers after the start timeout, leaving no process behind', async () => {
    const clock = new FakeClock();
    const mute = settings({ command: node, args: ['-e', 'setInterval(() => {}, 1000)'] });
    const hub = createMcpHub({
      servers: { mute1: mute, mute2: mute },
      logger: capturingLogger().logger,
      clock,
      startTimeoutMs: 30_000,
    });
    const starting = hub.start();
    const pids = (await waitFor(
      () => {
        const p = hub.status().map((s) => s.pid);
        return p.every((x) => x !== null) ? (p as number[]) : null;
      },
      10_000,
      'both processes to spawn',
    ))!;
    expect(hub.status().map((s) => s.state)).toEqual(['starting', 'starting']);
    clock.advance(30_000);
    await starting;
    for (const s of hub.status())
      expect(s).toMatchObject({ state: 'failed', reason: 'did not answer within 30 s', pid: null });
    await waitFor(() => pids.every(processGone), 10_000, 'the mute processes to end');
    await hub.close();
  });
});

describe('a stdio server that crashes', () => {
  it('an in-flight call fails clearly, calls meanwhile say it is restarting, and after the backoff it works again', async () => {
    const events = eventsFile();
    const clock = new FakeClock();
    const log = capturingLogger();
    const hub = createMcpHub({
      servers: { notes: stdioFixture({}, { MCP_FIXTURE_EVENTS: events.path }) },
      logger: log.logger,
      clock,
      backoff: (n) => 1000 * 2 ** n,
    });
    const signal = new AbortController().signal;
    const callTool = (name: string, args: Record<string, unknown> = {}) =>
      hub
        .toolsFor(slackChannel)
        .find((t) => t.name === name)!
        .call(args, toolContext(), signal);
    try {
      await hub.start();
      const firstPid = hub.status()[0]!.pid!;

      const crashed = await callTool('notes__crash');
      expect(crashed).toEqual({
        ok: false,
        error:
          'The MCP server "notes" stopped while running notes__crash (it crashed: exited with code 3: fixture: ready | fixture: crashing on purpose); it is being restarted. Try again later or do without it.',
      });
      expect(hub.status()[0]).toMatchObject({
        state: 'restarting',
        reason: 'exited with code 3: fixture: ready | fixture: crashing on purpose',
      });
      expect(processGone(firstPid)).toBe(true);

      // The last known tools stay offered; calling one says why it cannot run now.
      expect(await callTool('notes__echo', { text: 'hi' })).toEqual({
        ok: false,
        error:
          'The MCP server "notes" is not running (it crashed: exited with code 3: fixture: ready | fixture: crashing on purpose); it is being restarted. Try again later or do without it.',
      });
      expect(log.text()).toMatch(/"notes" stopped \(exited with code 3.*\); restarting in 1 s/);

      clock.advance(999);
      expect(hub.status()[0]!.state).toBe('restarting');
      clock.advance(1);
      await waitFor(() => hub.status()[0]!.state === 'connected', 15_000, 'the restart');
      const secondPid = hub.status()[0]!.pid!;
      expect(secondPid).not.toBe(firstPid);
      expect(await callTool('notes__echo', { text: 'back' })).toEqual({ ok: true, content: 'back' });

      await hub.close();
      expect(processGone(secondPid)).toBe(true);
    } finally {
      await hub.close();
    }
  });

  it('a restart that fails is retried with a longer delay', async () => {
    const refuse = join(mkdtempSync(join(tmpdir(), 'errand-mcp-')), 'refuse');
    const clock = new FakeClock();
    const log = capturingLogger();
    const hub = createMcpHub({
      servers: { notes: stdioFixture({}, { MCP_FIXTURE_REFUSE_IF: refuse }) },
      logger: log.logger,
      clock,
      backoff: (n) => 1000 * 2 ** n,
    });
    try {
      await hub.start();
      writeFileSync(refuse, '');
      await hub
        .toolsFor(slackChannel)
        .find((t) => t.name === 'notes__crash')!
        .call({}, toolContext(), new AbortController().signal);
      await waitFor(() => clock.pendingTimers() === 1, 10_000, 'the restart to be scheduled');
      clock.advance(1000);
      await waitFor(() => log.text().includes('restarting in 2 s'), 15_000, 'the failed restart to be rescheduled');
      expect(hub.status()[0]).toMatchObject({
        state: 'restarting',
        reason: 'exited with code 1: fixture: refusing to start',
      });
      rmSync(refuse);
      clock.advance(2000);
      await waitFor(() => hub.status()[0]!.state === 'connected', 15_000, 'the second restart');
    } finally {
      await hub.close();
    }
  });
});
