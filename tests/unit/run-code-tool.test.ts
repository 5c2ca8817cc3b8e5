import { describe, expect, it } from 'vitest';
import { createRunCodeTool } from '../../src/sandbox/agent/run-code-tool.js';
import { createToolRegistry } from '../../src/agent/tools/tool-registry.js';
import type { CodeRunner, RunCodeInput } from '../../src/sandbox/code-runner.js';
import { sandboxSettingsSchema } from '../../src/settings/sandbox-settings.js';

const conversation = { platform: 'memory', workspace: 'W1', channel: 'C1', thread: 'T1' };
const context = {
  conversationId: 'memory:W1:C1:T1',
  conversation,
  runId: 'r1',
  taskId: null,
  userId: 'U1',
  timezone: 'UTC',
  now: () => 0,
};

/** A runner that records its calls and answers as a clean exit. */
function recordingRunner(): CodeRunner & { calls: RunCodeInput[] } {
  const calls: RunCodeInput[] = [];
  return {
    calls,
    run: async (input) => (calls.push(input), { ok: true, exit_code: 0, stdout: 'out', stderr: '', files: [] }),
  };
}

const call = (args: Record<string, unknown>) => ({ id: 'c1', name: 'run_code', arguments: JSON.stringify(args) });

describe('run_code approval', () => {
  it.each([
    [{}, false],
    [{ network: ['pypi.org'] }, true],
    [{ approval: 'always' }, true],
    [{ approval: 'never', network: ['pypi.org'] }, false],
  ])('with sandbox %j asks first: %s', (settings, asks) => {
    const registry = createToolRegistry([
      createRunCodeTool(recordingRunner(), sandboxSettingsSchema.parse(settings), ['python']),
    ]);
    const gate = registry.approvalNeeded(call({ language: 'python', code: 'print(1)' }), context);
    expect(gate !== null).toBe(asks);
    if (gate) expect(gate).toEqual({ name: 'run_code', shown: { text: 'print(1)', info: 'python' } });
  });

  it('asks nothing for arguments that do not parse: execute refuses them with the reason', async () => {
    const registry = createToolRegistry([
      createRunCodeTool(recordingRunner(), sandboxSettingsSchema.parse({ approval: 'always' }), ['python']),
    ]);
    expect(registry.approvalNeeded(call({ language: 'cobol', code: 'x' }), context)).toBeNull();
    const out = await registry.execute(call({ language: 'cobol', code: 'x' }), context);
    expect(out.result).toMatchObject({
      ok: false,
      error: expect.stringContaining('language must be one of python, javascript, bash'),
    });
  });
});

describe('run_code arguments', () => {
  it('passes the conversation, run and timeout to the runner, and refuses a language this host lacks', async () => {
    const runner = recordingRunner();
    const registry = createToolRegistry([
      createRunCodeTool(runner, sandboxSettingsSchema.parse({}), ['python', 'bash']),
    ]);
    expect(
      (await registry.execute(call({ language: 'python', code: 'pass', timeout_seconds: 5 }), context)).result,
    ).toEqual({ ok: true, exit_code: 0, stdout: 'out', stderr: '', files: [] });
    expect(runner.calls[0]).toMatchObject({
      conversationId: context.conversationId,
      runId: 'r1',
      language: 'python',
      code: 'pass',
      timeoutSeconds: 5,
    });
    const js = await registry.execute(call({ language: 'javascript', code: '1' }), context);
    expect(js.result).toMatchObject({
      ok: false,
      error: 'javascript is not installed on this host (available: python, bash). Use another language.',
    });
    expect(runner.calls).toHaveLength(1);
  });
});
