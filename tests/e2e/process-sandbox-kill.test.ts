import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { startErrandProcess, type ErrandProcess } from './errand-process.js';

/*
 * Errand as a real process (npm start, the console with piped input) runs code in the sandbox, and is then
 * SIGKILLed: nothing runs after that in Errand, so only the sandbox's own wiring (bwrap's --die-with-parent
 * taking its PID namespace down) can make sure no process of the call is left on the host.
 */

let model: FakeOpenAI | null = null;
let errand: ErrandProcess | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await errand?.kill();
  await model?.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Host processes whose command line starts with `marker` (the sandboxed code names itself so). */
function marked(marker: string): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        return readFileSync(`/proc/${n}/cmdline`, 'utf8').startsWith(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('a sandboxed call when Errand is killed', () => {
  it('leaves no process of it on the host after a SIGKILL of Errand', async () => {
    const marker = `errand-sandbox-marker-${process.pid}-${Date.now()}`;
    model = await startFakeOpenAI();
    model.reply({
      toolCalls: [
        {
          name: 'run_code',
          arguments: { language: 'bash', code: `(exec -a ${marker}-child sleep 600) & exec -a ${marker} sleep 600` },
        },
      ],
    });
    const dir = mkdtempSync(join(tmpdir(), 'errand-sandbox-kill-'));
    dirs.push(dir);
    errand = startErrandProcess(
      {
        ERRAND_CONSOLE: 'on',
        OPENAI_BASE_URL: model.baseUrl,
        OPENAI_API_KEY: 'test-key',
        DATABASE_PATH: join(dir, 'errand.db'),
      },
      { stdin: 'pipe' },
    );
    errand.child.stdin!.write('run the code\n');
    await waitFor(
      () => marked(marker).length === 2,
      20_000,
      `the sandboxed processes to run (Errand printed: ${errand.output()})`,
    );
    await errand.kill();
    await waitFor(() => marked(marker).length === 0, 2_000, 'the sandboxed processes to be gone');
    expect(marked(marker)).toEqual([]);
  });
});
