import { readdirSync, readFileSync } from 'node:fs';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import type { FilesOut, OutputFile } from '../../src/attachments/workspace-ports.js';
import { lastUserText, type FakeToolCall, type RecordedRequest } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { toolResultJson } from '../support/tool-result-json.js';
import type { Harness } from './harness.js';

/** `run_code`'s result as the model got it. */
export interface CodeResult {
  ok: boolean;
  exit_code: number | null;
  stdout: string;
  stderr: string;
  files: { name: string; posted: boolean; reason?: string }[];
  error?: string;
  network_refused?: string[];
}

/**
 * Scripts the fake model by what the person said: a request whose text is a key of `calls` makes that call, the
 * request with its result answers `done: <text>`, and anything else gets `answer: <text>`. Several conversations
 * can then run at once without their scripted steps crossing.
 */
export function scriptByText(h: Harness): Map<string, FakeToolCall> {
  const calls = new Map<string, FakeToolCall>();
  h.model.respondWith((req) => {
    const said = lastUserText(req);
    const call = calls.get(said);
    if (req.messages.at(-1)?.role === 'tool') return { text: `done: ${said}` };
    return call ? { toolCalls: [call] } : { text: `answer: ${said}` };
  });
  return calls;
}

/** The run_code result of the run started by `text` (the request that carried it back to the model). */
export function resultOf(h: Harness, text: string): CodeResult {
  const req = h.model.requests.find(
    (r: RecordedRequest) => r.messages.at(-1)?.role === 'tool' && lastUserText(r) === text,
  );
  if (!req) throw new Error(`no run_code result for "${text}"`);
  return toolResultJson(req.messages.at(-1)!.content) as CodeResult;
}

let counter = 0;

/** Has the model run `code` in `where` (in reply to a unique message) and returns the result once the run ended. */
export async function runCode(
  h: Harness,
  calls: Map<string, FakeToolCall>,
  where: ConversationRef,
  code: string,
  options: { language?: string; timeoutSeconds?: number; wait?: boolean } = {},
): Promise<{ text: string; result: () => CodeResult }> {
  const text = `run #${++counter}`;
  calls.set(text, {
    name: 'run_code',
    arguments: {
      language: options.language ?? 'python',
      code,
      ...(options.timeoutSeconds ? { timeout_seconds: options.timeoutSeconds } : {}),
    },
  });
  await h.adapter.say(where, text, { userId: 'U1' });
  if (options.wait !== false)
    await waitFor(() => h.adapter.textsIn(where).includes(`done: ${text}`), 20_000, `the end of "${text}"`);
  return { text, result: () => resultOf(h, text) };
}

/** A FilesOut that records what it was handed and says every file was posted. */
export function recordingFilesOut(): FilesOut & {
  handed: { conversation: string; runId: string; files: OutputFile[] }[];
} {
  const handed: { conversation: string; runId: string; files: OutputFile[] }[] = [];
  return {
    handed,
    async postFiles(conversation, runId, files) {
      handed.push({ conversation: `${conversation.channel}:${conversation.thread ?? '-'}`, runId, files: [...files] });
      return files.map((f) => ({ name: f.name, posted: true as const }));
    },
  };
}

/** This process's descendants on the host (pid and command name), from /proc. */
export function descendants(root = process.pid): { pid: number; comm: string; uid: number }[] {
  const parent = new Map<number, number>();
  const info = new Map<number, { comm: string; uid: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, 'utf8');
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]);
      const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
      const comm = /^Name:\s+(.*)$/m.exec(status)?.[1] ?? '';
      parent.set(Number(name), ppid);
      info.set(Number(name), { comm, uid });
    } catch {
      // gone meanwhile
    }
  }
  const out: { pid: number; comm: string; uid: number }[] = [];
  for (const [pid, i] of info) {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) {
      if (p === root) {
        out.push({ pid, ...i });
        break;
      }
    }
  }
  return out;
}

/** The sandbox's processes among this process's descendants (bwrap and what runs in it). */
export function sandboxProcesses(): { pid: number; comm: string; uid: number }[] {
  return descendants().filter(
    (d) => ['bwrap', 'bash', 'python3', 'node', 'sleep', 'tar'].includes(d.comm) || d.uid === 65534,
  );
}
