import type { Clock } from '../clock.js';
import { FORWARDER, startEgressProxy } from './egress-proxy.js';
import { sandboxCommand, type CodeLanguage, type ReadOnlyMount, type SandboxLimits } from './sandbox-command.js';
import { runSandboxed, type SandboxOutcome } from './sandbox-process.js';
import type { SandboxAvailability } from './sandbox-probe.js';
import { packWorkspace, type ArchivedFile } from './workspace-archive.js';

/** Most bytes of stdout and of stderr kept per call (head and tail). */
export const OUTPUT_CAP_BYTES = 1024 * 1024;

/** One call as the sandbox takes it: the code, the workspace's files, the limits and the network allowlist. */
export interface SandboxCall {
  readonly language: CodeLanguage;
  readonly code: string;
  /** The workspace's files, unpacked in `/workspace` before the code starts. */
  readonly files: readonly ArchivedFile[];
  readonly limits: SandboxLimits;
  /** `sandbox.network`: hosts reachable through the proxy; empty: no network at all. */
  readonly network: readonly string[];
  /** Host folders shown read-only under `/skills/` (the run's enabled skills). */
  readonly readOnlyMounts?: readonly ReadOnlyMount[];
  readonly signal?: AbortSignal;
}

/** A call's outcome, with what the egress proxy refused. */
export interface SandboxRun extends SandboxOutcome {
  /** Hosts the code asked the proxy for and was refused. */
  readonly refused: readonly string[];
}

/** Runs code in bubblewrap; only made from an available probe, so there is no path that runs code outside it. */
export interface Sandbox {
  run(call: SandboxCall): Promise<SandboxRun>;
}

/** The sandbox of a host where the probe started one; each call gets its own proxy (with network) and bwrap. */
export function createSandbox(availability: Extract<SandboxAvailability, { available: true }>, clock: Clock): Sandbox {
  const { bwrap, layout, runAs } = availability;
  return {
    async run(call) {
      const proxy = call.network.length > 0 ? await startEgressProxy(call.network, runAs) : null;
      try {
        const command = sandboxCommand({
          language: call.language,
          code: call.code,
          limits: call.limits,
          layout,
          proxySocket: proxy?.socketPath ?? null,
          forwarder: FORWARDER,
          hasFiles: call.files.length > 0,
          ...(call.readOnlyMounts ? { readOnlyMounts: call.readOnlyMounts } : {}),
        });
        const archive = call.files.length > 0 ? await packWorkspace(call.files) : Buffer.alloc(0);
        const outcome = await runSandboxed({
          command,
          bwrap,
          runAs,
          archive,
          timeoutMs: call.limits.timeoutMs,
          ...(call.signal ? { signal: call.signal } : {}),
          outputCapBytes: OUTPUT_CAP_BYTES,
          archiveCapBytes: (call.limits.workspaceMb + 8) * 1024 * 1024,
          clock,
        });
        return { ...outcome, refused: [...(proxy?.refused ?? [])] };
      } finally {
        await proxy?.close();
      }
    },
  };
}
