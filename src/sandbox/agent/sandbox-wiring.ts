import { createRunCodeTool } from './run-code-tool.js';
import type { ToolDefinition } from '../../agent/tools/tool.js';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { SandboxStatus } from '../../metrics/health-check.js';
import { createCodeRunner } from '../code-runner.js';
import { createSandbox } from '../sandbox.js';
import { exposedPrivatePath } from '../host-layout.js';
import { probeSandbox, type SandboxAvailability } from '../sandbox-probe.js';
import { createWorkspaceRetention, type WorkspaceRetention } from '../workspace-retention.js';
import type { FilesOut, WorkspaceInputs } from '../../attachments/workspace-ports.js';
import { createWorkspaces } from '../workspace.js';
import type { SandboxSettings } from '../../settings/sandbox-settings.js';
import type { WorkspaceStore } from '../workspace-store.js';

/**
 * What the app gets from the sandbox: the tool (when offered; its description tells the model about in/ and out/,
 * so the system prompt stays as it was), the workspaces' door for attachments, retention and status.
 */
export interface SandboxParts {
  readonly tools: readonly ToolDefinition[];
  /** Where attachments land (`/workspace/in/`), whether or not code can run here. */
  readonly inputs: WorkspaceInputs;
  readonly retention: WorkspaceRetention;
  /** `/healthz`'s `sandbox`. */
  readonly status: SandboxStatus;
  /** What the web console's Overview says of it: why it is off or unavailable (with the fix), or what it runs. */
  readonly summary: string;
}

/** Used until the platforms can post files: every output is reported as not posted, with the reason. */
export const filesOutNotWired: FilesOut = {
  async postFiles(_conversation, _runId, files) {
    return files.map((f) => ({
      name: f.name,
      posted: false as const,
      reason: 'this Errand cannot post files to the platform yet; the file stays in /workspace/posted/',
    }));
  },
};

let probed: Promise<SandboxAvailability> | null = null;

/** The real probe, run once per process (it starts a sandbox: ~0.1 s). */
export function probeOnce(): Promise<SandboxAvailability> {
  probed ??= probeSandbox();
  return probed;
}

/**
 * Sets up `run_code` (DESIGN.md "Running code in a sandbox"): probes bubblewrap and offers the tool only where a
 * sandbox really starts — code never runs outside one. Start-up logs why it is not offered, with the fix.
 */
export async function setUpSandbox(deps: {
  settings: SandboxSettings;
  store: WorkspaceStore;
  clock: Clock;
  logger: Logger;
  filesOut?: FilesOut | undefined;
  probe?: (() => Promise<SandboxAvailability>) | undefined;
  /** Errand's own places (working folder, data folder, configuration file): the sandbox must see none of them. */
  privatePaths?: readonly string[];
}): Promise<SandboxParts> {
  const { settings, store, clock, logger } = deps;
  const workspaces = createWorkspaces({ store, quotaMb: settings.workspaceMb, clock });
  const retention = createWorkspaceRetention({ store, clock, logger, retentionDays: settings.retentionDays });
  const none = { tools: [], inputs: workspaces, retention };
  if (!settings.enabled) {
    logger.info('run_code is off (sandbox.enabled is false)');
    return {
      ...none,
      status: 'disabled',
      summary: 'disabled (sandbox.enabled is false in the configuration file): run_code is not offered',
    };
  }
  const probed = await (deps.probe ?? probeOnce)();
  const exposed = probed.available ? exposedPrivatePath(probed.layout, deps.privatePaths ?? []) : null;
  const availability: SandboxAvailability = exposed
    ? {
        available: false,
        reason: `${exposed} (Errand's own files) is inside a folder the sandbox shows to code`,
        fix: 'Keep Errand, its .env, DATABASE_PATH and ERRAND_CONFIG outside /usr and outside the node install folder.',
      }
    : probed;
  if (!availability.available) {
    logger.warn(
      { reason: availability.reason, fix: availability.fix },
      `run_code is not offered: ${availability.reason}. ${availability.fix}`,
    );
    return { ...none, status: 'unavailable', summary: `unavailable: ${availability.reason}. ${availability.fix}` };
  }
  const runner = createCodeRunner({
    sandbox: createSandbox(availability, clock),
    workspaces,
    filesOut: deps.filesOut ?? filesOutNotWired,
    settings,
  });
  logger.info(
    { languages: availability.languages, network: settings.network, runAs: availability.runAs?.uid ?? 'errand' },
    'run_code is offered (bubblewrap sandbox)',
  );
  const reach = settings.network.length > 0 ? `network to ${settings.network.join(', ')}` : 'no network';
  const summary = `available (bubblewrap): ${availability.languages.join(', ')}; ${reach}; ${settings.memoryMb} MB, ${settings.maxProcesses} processes, at most ${settings.maxSeconds} s per call`;
  return {
    tools: [createRunCodeTool(runner, settings, availability.languages)],
    inputs: workspaces,
    retention,
    status: 'available',
    summary,
  };
}
