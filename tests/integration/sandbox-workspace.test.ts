import { deflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { waitFor } from '../fakes/wait-for.js';
import { useStoreKinds } from '../support/store-kinds.js';
import { startHarness, type Harness } from './harness.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import { lastUserText, type FakeToolCall } from '../fakes/fake-openai.js';
import {
  recordingFilesOut,
  resultOf,
  runCode,
  sandboxProcesses,
  scriptByText,
  type CodeResult,
} from './sandbox-kit.js';

/*
 * A conversation's workspace through the tool path, on both stores: files kept between calls, after a restart and
 * from another process on the same PostgreSQL database; out/ handed to the platform once; the quota.
 */

const stores = useStoreKinds();
const harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0).reverse()) await h.close();
});

/** A 1×1 PNG made by hand (zlib for its one IDAT chunk), so the test needs no imaging library in the sandbox. */
function tinyPng(): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.from([0, 255, 0, 0]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A run_code call of python `source`. */
const code = (source: string): FakeToolCall => ({ name: 'run_code', arguments: { language: 'python', code: source } });

/**
 * Scripts the fake model by what the person said: a request whose text is a key makes those calls one step at a
 * time, then answers `done: <text>`.
 */
function scriptSteps(h: Harness): Map<string, FakeToolCall[]> {
  const scripts = new Map<string, FakeToolCall[]>();
  h.model.respondWith((req) => {
    const said = lastUserText(req);
    const from = req.messages.map((m) => m.role).lastIndexOf('user');
    const made = req.messages.slice(from).filter((m) => m.role === 'assistant').length;
    const next = scripts.get(said)?.[made];
    return next ? { toolCalls: [next] } : { text: `done: ${said}` };
  });
  return scripts;
}

let said = 0;

/** `userId` asks in `where`; the model makes `calls` one by one; resolves once the run has answered. */
async function say(
  h: Harness,
  scripts: Map<string, FakeToolCall[]>,
  where: ConversationRef,
  userId: string,
  calls: FakeToolCall[],
): Promise<{ result: () => CodeResult }> {
  const text = `ask #${++said}`;
  scripts.set(text, calls);
  await h.adapter.say(where, text, { userId });
  const conversationId = await h.app.conversations.ensure(where);
  await waitFor(
    async () =>
      h.model.requests.some(
        (r) =>
          lastUserText(r) === text &&
          r.messages.at(-1)?.role === 'tool' &&
          r.messages.filter((m) => m.role === 'tool').length > 0,
      ) && (await h.app.runs.active(conversationId)) === null,
    20_000,
    `the end of "${text}"`,
  );
  return { result: () => resultOf(h, text) };
}

describe.each(stores.kinds)('sandbox workspaces (%s)', (kind) => {
  it('keeps files between calls and across a restart, and another process on the same database reads them', async () => {
    const env = { ...(await stores.env(kind)), ...errandFileEnv({ sandbox: {} }) };
    const h = await startHarness(env);
    harnesses.push(h);
    let calls = scriptByText(h);
    const where = h.adapter.thread('C1', 'T-keep');
    expect(
      (
        await runCode(
          h,
          calls,
          where,
          "import os\nos.makedirs('data', exist_ok=True)\nopen('data/notes.txt', 'w').write('kept across calls')",
        )
      ).result().ok,
    ).toBe(true);
    expect((await runCode(h, calls, where, "print(open('data/notes.txt').read())")).result().stdout).toBe(
      'kept across calls\n',
    );
    await h.restart();
    calls = scriptByText(h);
    expect((await runCode(h, calls, where, "print(open('data/notes.txt').read())")).result().stdout).toBe(
      'kept across calls\n',
    );
    if (kind === 'postgres') {
      // Another process on the database takes the conversation up (this one is idle, so it cannot take the task).
      const other = await startHarness(env);
      harnesses.push(other);
      const otherCalls = scriptByText(other);
      const there = other.adapter.thread('C1', 'T-keep');
      const conversationId = await other.app.conversations.ensure(there);
      expect((await other.app.store.workspaces.entries(conversationId)).map((e) => e.path)).toEqual(['data/notes.txt']);
      harnesses.splice(harnesses.indexOf(h), 1);
      await h.close();
      expect(
        (
          await runCode(
            other,
            otherCalls,
            there,
            "import os\nprint(open('data/notes.txt').read())\nos.remove('data/notes.txt')",
          )
        ).result().stdout,
      ).toBe('kept across calls\n');
      expect(await other.app.store.workspaces.entries(conversationId)).toEqual([]);
    }
  });

  it('hands what the code wrote to out/ to the platform once, with its bytes, then moves it to posted/', async () => {
    const filesOut = recordingFilesOut();
    const h = await startHarness({ ...(await stores.env(kind)), ...errandFileEnv({ sandbox: {} }) }, { filesOut });
    harnesses.push(h);
    const calls = scriptByText(h);
    const where = h.adapter.thread('C1', 'T-out');
    const png = tinyPng();
    const write = `import base64\nopen('out/chart.png', 'wb').write(base64.b64decode('${png.toString('base64')}'))\nopen('out/table.csv', 'w').write('a,b\\n1,2\\n')`;
    const first = (await runCode(h, calls, where, write)).result();
    expect(first).toMatchObject({
      ok: true,
      exit_code: 0,
      files: [
        { name: 'chart.png', posted: true },
        { name: 'table.csv', posted: true },
      ],
    });
    expect(filesOut.handed).toHaveLength(1);
    const [chart, table] = filesOut.handed[0]!.files;
    expect(chart).toMatchObject({ name: 'chart.png', mimeType: 'image/png' });
    expect(Buffer.from(chart!.bytes).equals(png)).toBe(true);
    expect(table).toMatchObject({ name: 'table.csv', mimeType: 'text/csv' });
    const second = (
      await runCode(h, calls, where, "import os\nprint(sorted(os.listdir('out')), sorted(os.listdir('posted')))")
    ).result();
    expect(second.stdout).toBe("[] ['chart.png', 'table.csv']\n");
    expect(second.files).toEqual([]);
    expect(filesOut.handed).toHaveLength(1);
  });

  it("keeps what a private run's code wrote its principal's: another person's call never sees it, her own next call does", async () => {
    const h = await startHarness({ ...(await stores.env(kind)), ...errandFileEnv({ sandbox: {} }) });
    harnesses.push(h);
    await h.app.store.memory.remember({
      scope: 'me',
      subject: 'memory:U0ANA',
      text: 'Ana locker code is 4711-ZETA',
      createdBy: 'memory:U0ANA',
    });
    const where = h.adapter.thread('C1', 'T-private');
    const steps = scriptSteps(h);
    const list =
      "import os\nprint(sorted(os.path.relpath(os.path.join(d, f)) for d, _, fs in os.walk('.') for f in fs))";
    // Ana's run reads her memory (private from then on), then its code keeps a note in the workspace.
    const anas = await say(h, steps, where, 'U0ANA', [
      { name: 'recall', arguments: { query: 'locker code' } },
      code("open('notes.txt', 'w').write('4711-ZETA')"),
    ]);
    expect(anas.result()).toMatchObject({ ok: true });
    // Bob's call in the same thread sees no file of hers, and is told that some are not shown.
    const bobs = (await say(h, steps, where, 'U0BOB', [code(list)])).result() as CodeResult & {
      private_files_not_shown?: string;
    };
    expect(bobs).toMatchObject({ ok: true, stdout: '[]\n' });
    expect(bobs.private_files_not_shown).toContain('<@U0ANA>');
    // Bob writes a file of the same name: his is public, hers stays hers, and each of them reads their own.
    expect((await say(h, steps, where, 'U0BOB', [code("open('notes.txt', 'w').write('bob')")])).result()).toMatchObject(
      { ok: true },
    );
    expect((await say(h, steps, where, 'U0BOB', [code("print(open('notes.txt').read())")])).result()).toMatchObject({
      ok: true,
      stdout: 'bob\n',
    });
    expect((await say(h, steps, where, 'U0ANA', [code("print(open('notes.txt').read())")])).result()).toMatchObject({
      ok: true,
      stdout: '4711-ZETA\n',
    });
    const conversationId = await h.app.conversations.ensure(where);
    expect((await h.app.store.workspaces.files(conversationId)).map((f) => [f.path, f.bytes.toString()])).toEqual([
      ['notes.txt', 'bob'],
    ]);
    expect(await h.app.store.workspaces.privateEntries(conversationId)).toEqual([
      { path: 'notes.txt', size: 9, owner: 'U0ANA' },
    ]);
  });

  it('keeps nothing of a call that passes the quota, and says so', async () => {
    const h = await startHarness({ ...(await stores.env(kind)), ...errandFileEnv({ sandbox: { workspaceMb: 1 } }) });
    harnesses.push(h);
    const calls = scriptByText(h);
    const where = h.adapter.thread('C1', 'T-quota');
    expect((await runCode(h, calls, where, "open('small.txt', 'w').write('x' * 1000)")).result().ok).toBe(true);
    const big = (
      await runCode(
        h,
        calls,
        where,
        "open('big.bin', 'wb').write(b'x' * 2_000_000)\nopen('small.txt', 'w').write('changed')",
      )
    ).result();
    expect(big.ok).toBe(false);
    expect(big.error).toMatch(/over its quota of 1 MB \(sandbox\.workspaceMb\)/);
    const after = (
      await runCode(h, calls, where, "import os\nprint(sorted(os.listdir('.')), len(open('small.txt').read()))")
    ).result();
    expect(after.stdout).toBe("['in', 'out', 'small.txt'] 1000\n");
  });
});

describe('run_code and the rest of Errand', () => {
  it('kills the sandbox when Errand shuts down mid-call', async () => {
    const h = await startHarness(errandFileEnv({ sandbox: {} }));
    const calls = scriptByText(h);
    await runCode(h, calls, h.adapter.thread('C1', 'T-shutdown'), 'while True:\n    pass', { wait: false });
    await waitFor(() => sandboxProcesses().some((p) => p.comm === 'python3'), 10_000, 'the loop to run');
    await h.close();
    await waitFor(() => sandboxProcesses().length === 0, 2_000, 'the sandbox to be gone');
  });

  it('asks before running code when sandbox.approval is "always", showing the code itself', async () => {
    const h = await startHarness(errandFileEnv({ sandbox: { approval: 'always' } }));
    harnesses.push(h);
    const calls = scriptByText(h);
    const where = h.adapter.thread('C1', 'T-approve');
    const run = await runCode(h, calls, where, "print('approved run')", { wait: false });
    await waitFor(() => h.adapter.posts.some((p) => p.buttons.length === 3), 10_000, 'the approval post');
    const post = h.adapter.posts.find((p) => p.buttons.length === 3)!;
    expect(post.text).toContain("I want to run `run_code` with:\n```python\nprint('approved run')\n```");
    await h.adapter.click(post.buttons[0]!.actionId, where, 'Allow once', 'U1');
    await waitFor(() => h.adapter.textsIn(where).includes(`done: ${run.text}`), 10_000, 'the approved run');
    expect(run.result()).toMatchObject({ ok: true, stdout: 'approved run\n' });
  });

  it('does not offer run_code when sandbox.enabled is false, nor where no sandbox starts, and /healthz-style status says why', async () => {
    const off = await startHarness(errandFileEnv({ sandbox: { enabled: false } }));
    harnesses.push(off);
    await off.adapter.say(off.adapter.thread('C1', 'T-off'), 'hello', { userId: 'U1' });
    await waitFor(() => off.model.requests.length === 1);
    expect(off.model.requests[0]!.tools.map((t) => t.function.name)).not.toContain('run_code');
    const none = await startHarness(errandFileEnv({ sandbox: {} }), {
      sandboxProbe: async () => ({
        available: false,
        reason: 'bubblewrap (bwrap) is not installed',
        fix: 'apt-get install bubblewrap',
      }),
    });
    harnesses.push(none);
    await none.adapter.say(none.adapter.thread('C1', 'T-none'), 'hello', { userId: 'U1' });
    await waitFor(() => none.model.requests.length === 1);
    expect(none.model.requests[0]!.tools.map((t) => t.function.name)).not.toContain('run_code');
  });
});
