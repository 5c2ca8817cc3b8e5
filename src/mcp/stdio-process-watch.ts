import { ChildProcess } from 'node:child_process';
import type { Logger } from 'pino';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const TAIL_LINES = 5;

/** What a stdio server's process said on stderr and how it ended: the raw material of a useful log line. */
export interface StdioProcessWatch {
  /** "exited with code 1: <last stderr lines>", or null while the process runs. */
  exitReason(): string | null;
  /** The last few stderr lines, oldest first. */
  stderrTail(): string;
}

/**
 * Pipes a stdio server's stderr to the logger (debug: servers chat there) keeping the last lines, and
 * records the exit code. The SDK transport does not expose the exit code, so this reads its child
 * process once started; if a future SDK hides it, the reason falls back to "exited" plus stderr.
 */
export function watchStdioProcess(transport: StdioClientTransport, logger: Logger): StdioProcessWatch {
  const tail: string[] = [];
  let partial = '';
  let exit: string | null = null;
  transport.stderr?.on('data', (chunk: Buffer | string) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines.map((l) => l.trimEnd()).filter(Boolean)) {
      logger.debug({ stderr: line }, 'MCP server stderr');
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
    }
  });
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    const child = (transport as unknown as { _process?: unknown })._process;
    if (child instanceof ChildProcess) {
      child.once('exit', (code, signal) => {
        exit = signal ? `was killed by ${signal}` : `exited with code ${code ?? 'unknown'}`;
      });
    }
  };
  const stderrTail = () => [...tail, partial.trim()].filter(Boolean).join(' | ');
  return {
    stderrTail,
    exitReason: () => {
      const how = exit ?? (transport.pid === null ? 'exited' : null);
      if (how === null) return null;
      const said = stderrTail();
      return said ? `${how}: ${said}` : how;
    },
  };
}
