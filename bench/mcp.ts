import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { silentLogger } from '../src/logger.js';
import { createMcpHub } from '../src/composition/mcp-hub.js';
import { DEFAULT_MAX_RESULT_CHARS, toToolResult } from '../src/mcp/mcp-tool-result.js';
import { mcpServerSchema } from '../src/settings/mcp-server-settings.js';
import { echoTool } from '../tests/fixtures/mcp/fixture-mcp-server.js';
import type { Benchmark } from './benchmark.js';
import { median } from './overhead-figures.js';

const WARMUP = 100;
const CALLS = 2000;

async function time(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
  }
  return out;
}

/**
 * What an MCP tool costs on top of the work itself: a trivial tool called through the hub (ExternalTool →
 * SDK client → stdio → the fixture server → back, result mapped for the model) against the same function
 * called in process and mapped the same way. Medians of sequential calls after a warm-up.
 */
export const benchmark: Benchmark = {
  name: 'mcp',
  figures: ['mcp_call_overhead_ms'],
  async run() {
    const settings = mcpServerSchema.parse({
      command: process.execPath,
      args: ['--import', 'tsx', join(import.meta.dirname, '../tests/fixtures/mcp/stdio-fixture-server.ts')],
      tools: ['echo'],
    });
    const hub = createMcpHub({ servers: { bench: settings }, logger: silentLogger() });
    await hub.start();
    try {
      const conversation = { platform: 'console', workspace: 'local', channel: 'bench', thread: null };
      const tool = hub.toolsFor(conversation)[0];
      if (!tool) throw new Error(`the fixture server did not start: ${JSON.stringify(hub.status())}`);
      const context = {
        conversationId: 'c',
        conversation,
        runId: 'r',
        taskId: null,
        userId: null,
        timezone: 'UTC',
        now: () => Date.now(),
      };
      const signal = new AbortController().signal;
      const viaMcp = (i: number) => tool.call({ text: `ping ${i}` }, context, signal);
      const inProcess = async (i: number) => toToolResult(echoTool({ text: `ping ${i}` }), DEFAULT_MAX_RESULT_CHARS);
      await time(WARMUP, viaMcp);
      await time(WARMUP, inProcess);
      const mcp = median(await time(CALLS, viaMcp));
      const local = median(await time(CALLS, inProcess));
      return [
        {
          name: 'mcp_call_overhead_ms',
          value: mcp - local,
          unit: 'ms',
          detail: `stdio round trip ${mcp.toFixed(3)} ms vs in-process ${local.toFixed(4)} ms (median of ${CALLS} sequential calls)`,
        },
      ];
    } finally {
      await hub.close();
    }
  },
};
