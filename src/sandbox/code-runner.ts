import type { ConversationRef } from '../chat/conversation-ref.js';
import type { SandboxSettings } from '../settings/sandbox-settings.js';
import type { CodeLanguage, ReadOnlyMount, SandboxLimits } from './sandbox-command.js';
import type { Sandbox, SandboxRun } from './sandbox.js';
import { unpackWorkspace } from './workspace-archive.js';
import type { FilesOut, OutputFile, PostedFile } from '../attachments/workspace-ports.js';
import type { Workspaces } from './workspace.js';

/** `timeout_seconds` when the call gives none. */
export const DEFAULT_TIMEOUT_SECONDS = 60;
/** Most characters of stdout and of stderr the model reads (head and tail). */
export const MODEL_OUTPUT_CHARS = 8000;

/** One call as the tool hands it over: where it runs (the conversation and run) and what. */
export interface RunCodeInput {
  readonly conversation: ConversationRef;
  readonly conversationId: string;
  readonly runId: string;
  readonly language: CodeLanguage;
  readonly code: string;
  readonly timeoutSeconds?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Host folders the code may read under `/skills/` (the run's enabled skills, checked against their pins). */
  readonly readOnlyMounts?: readonly ReadOnlyMount[] | undefined;
  /** The run's principal: the call sees the workspace's public files and their private ones, never anyone else's. */
  readonly principal?: string | null | undefined;
  /**
   * The run holds its principal's private material already (DESIGN.md "Private stays private in a shared thread"):
   * what the call writes is private to them, and its output files are held for their choice where others read.
   */
  readonly holdsPrivate?: boolean | undefined;
  /** Others read the conversation (a channel, its threads, a group DM): private output files are held, not posted. */
  readonly othersRead?: boolean | undefined;
}

/** `run_code`'s result as the model reads it (DESIGN.md: `{ok, exit_code, stdout, stderr, files}`, `error` when not ok). */
export interface RunCodeResult {
  readonly ok: boolean;
  readonly exit_code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly files: readonly PostedFile[];
  readonly error?: string;
  /** Hosts the code asked for and the proxy refused (not in `sandbox.network`). */
  readonly network_refused?: readonly string[];
  /** Said when the workspace holds files private to others, which the call did not see. */
  readonly private_files_not_shown?: string;
}

/** A call's result, and whom it is private to: it saw or wrote its principal's private files (absent: nobody). */
export type RunCodeOutcome = RunCodeResult & { readonly privateTo?: string };

/** What the model is told of files in the workspace that are private to others and were not materialised. */
export function hiddenFilesNote(owners: readonly string[]): string {
  return `Files private to ${owners.map((o) => `<@${o}>`).join(', ')} are not shown: they came from what only they can see.`;
}

/** The limits of one call from the settings and the call's own `timeout_seconds` (capped at `sandbox.maxSeconds`). */
export function limitsFor(settings: SandboxSettings, timeoutSeconds?: number): SandboxLimits {
  const seconds = Math.min(timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS, settings.maxSeconds);
  return {
    timeoutMs: seconds * 1000,
    memoryMb: settings.memoryMb,
    maxProcesses: settings.maxProcesses,
    fileSizeMb: settings.workspaceMb,
    // Room past the quota, so that passing it shows as "over the quota" rather than a disk-full error.
    workspaceMb: settings.workspaceMb + Math.max(8, Math.ceil(settings.workspaceMb / 10)),
    tmpMb: Math.max(16, Math.floor(settings.memoryMb / 2)),
  };
}

/** A stream's text for the model: whole up to MODEL_OUTPUT_CHARS, else its head and tail with a note of the cut. */
export function forModel(text: string, max = MODEL_OUTPUT_CHARS): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n… ${text.length - 2 * half} characters cut (the output was ${text.length} characters; print less, or write it to a file) …\n${text.slice(text.length - half)}`;
}

function failureOf(run: SandboxRun, seconds: number, settings: SandboxSettings): string | null {
  switch (run.end) {
    case 'timed_out':
      return `The code ran past its time limit of ${seconds} s and was killed with everything it started; nothing it wrote in this call was kept. Give timeout_seconds for longer work (at most ${settings.maxSeconds}, sandbox.maxSeconds), or do less per call.`;
    case 'stopped':
      return 'The run was stopped while the code ran: it was killed with everything it started, and nothing it wrote in this call was kept.';
    case 'not_started':
      return `The sandbox could not be started (${run.startError ?? 'unknown reason'}); the code did not run.`;
    case 'exited':
      break;
  }
  if (run.exitCode === 0) return null;
  const status = run.exitCode ?? -1;
  const killed =
    status > 128 ? ` (killed by signal ${status - 128}${status === 137 ? ', as when it runs out of memory' : ''})` : '';
  return `The code exited with status ${status}${killed}. Limits: ${settings.memoryMb} MB of memory per process, ${settings.maxProcesses} processes and threads, files up to ${settings.workspaceMb} MB.`;
}

/**
 * One `run_code` call: the conversation's workspace materialised in a fresh sandbox, the code run under the call's
 * limits, what it left kept (within the quota), and what it wrote to `out/` handed to the platform once.
 */
export function createCodeRunner(deps: {
  sandbox: Sandbox;
  workspaces: Workspaces;
  filesOut: FilesOut;
  settings: SandboxSettings;
}) {
  const { sandbox, workspaces, filesOut, settings } = deps;
  const post = async (
    input: RunCodeInput,
    outputs: readonly OutputFile[],
    heldFor: string | null,
  ): Promise<readonly PostedFile[]> => {
    if (outputs.length === 0) return [];
    try {
      return await filesOut.postFiles(input.conversation, input.runId, outputs, input.signal, heldFor);
    } catch (err) {
      const reason = `could not be posted: ${err instanceof Error ? err.message : String(err)}`;
      return outputs.map((o) => ({ name: o.name, posted: false, reason }));
    }
  };
  return {
    async run(input: RunCodeInput): Promise<RunCodeOutcome> {
      const limits = limitsFor(settings, input.timeoutSeconds);
      const principal = input.principal ?? null;
      const before = await workspaces.checkout(input.conversationId, principal);
      // A call that reads its principal's private files, or runs for a run holding their private material, is theirs.
      const privateTo = principal !== null && (input.holdsPrivate === true || before.holdsPrivate) ? principal : null;
      const marks = {
        ...(privateTo ? { privateTo } : {}),
        ...(before.hiddenOwners.length > 0 ? { private_files_not_shown: hiddenFilesNote(before.hiddenOwners) } : {}),
      };
      const run = await sandbox.run({
        language: input.language,
        code: input.code,
        files: before.files.map((f) => ({ path: f.path, bytes: f.bytes, mtime: f.mtime })),
        limits,
        network: settings.network,
        ...(input.readOnlyMounts ? { readOnlyMounts: input.readOnlyMounts } : {}),
        ...(input.signal ? { signal: input.signal } : {}),
      });
      const shown = {
        stdout: forModel(run.stdout.text),
        stderr: forModel(run.stderr.text),
        ...(run.refused.length > 0 ? { network_refused: [...new Set(run.refused)] } : {}),
        ...marks,
      };
      const failure = failureOf(run, limits.timeoutMs / 1000, settings);
      if (run.end !== 'exited')
        return { ok: false, error: failure ?? 'The code did not finish.', exit_code: null, ...shown, files: [] };
      const after = run.archive ? await unpackWorkspace(run.archive).catch(() => null) : null;
      if (!after) {
        const error =
          'The workspace could not be read back after the call (it grew past the quota, or the code ended or disturbed the sandbox shell that packs it): nothing it wrote in this call was kept.';
        return {
          ok: false,
          error: failure ? `${failure} ${error}` : error,
          exit_code: run.exitCode,
          ...shown,
          files: [],
        };
      }
      const commit = await workspaces.commit(input.conversationId, before, after, privateTo);
      if (!commit.ok)
        return {
          ok: false,
          error: failure ? `${failure} ${commit.reason}` : commit.reason,
          exit_code: run.exitCode,
          ...shown,
          files: [],
        };
      // Files from private material reach the thread only when their owner shares them.
      const files = await post(
        input,
        commit.outputs,
        privateTo !== null && input.othersRead === true ? privateTo : null,
      );
      return failure
        ? { ok: false, error: failure, exit_code: run.exitCode, ...shown, files }
        : { ok: true, exit_code: run.exitCode, ...shown, files };
    },
  };
}

/** What `run_code` calls: one sandboxed call, workspace in and out. */
export type CodeRunner = ReturnType<typeof createCodeRunner>;
