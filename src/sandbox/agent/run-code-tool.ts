import { z } from 'zod';
import type { CodeRunner } from '../code-runner.js';
import { CODE_LANGUAGES, type CodeLanguage } from '../sandbox-command.js';
import type { SandboxSettings } from '../../settings/sandbox-settings.js';
import { defineTool, type ToolOutcome } from '../../agent/tools/tool.js';

const FENCE: Record<CodeLanguage, string> = { python: 'python', javascript: 'javascript', bash: 'bash' };

/**
 * `run_code` (DESIGN.md "Running code in a sandbox"): the code runs in bubblewrap, in the conversation's
 * workspace; approval follows `sandbox.approval` (`auto`: only when `sandbox.network` lets it reach hosts).
 */
export function createRunCodeTool(runner: CodeRunner, settings: SandboxSettings, languages: readonly CodeLanguage[]) {
  const needsApproval = settings.approval === 'always' || (settings.approval === 'auto' && settings.network.length > 0);
  const network =
    settings.network.length > 0
      ? `It can reach only ${settings.network.join(', ')} (through a proxy: HTTP_PROXY is set).`
      : 'It has no network access.';
  return defineTool({
    name: 'run_code',
    description: `Runs code in a sandbox, in this conversation's workspace: /workspace (the working directory), whose files stay between calls. Use it to compute, to read attached files as data and to make charts or files rather than guessing. /workspace/in/ holds the files people attached in this conversation. Files written to /workspace/out/ are posted to the thread when the call ends (images such as a matplotlib chart saved as PNG show inline), then moved to /workspace/posted/. Once this run has used what only the person you work for can see, what the code writes is private to them (other people's calls do not see it) and files to post are shown to them first. Python has numpy, pandas and matplotlib where the host installed them. ${network} Limits: timeout_seconds (default 60, at most ${settings.maxSeconds}), ${settings.memoryMb} MB of memory per process, ${settings.maxProcesses} processes. Returns exit_code, stdout and stderr (long output cut in the middle) and the files posted.`,
    parameters: z.object({
      language: z.enum(CODE_LANGUAGES, { message: `language must be one of ${CODE_LANGUAGES.join(', ')}` }),
      code: z
        .string()
        .min(1, 'code must not be empty')
        .max(200_000, 'code must be at most 200000 characters: write long data to a file in an earlier call'),
      timeout_seconds: z
        .number()
        .int('timeout_seconds must be a whole number')
        .min(1, 'timeout_seconds must be at least 1')
        .max(3600, 'timeout_seconds must be at most 3600')
        .optional(),
    }),
    approval: {
      needed: () => needsApproval,
      show: (args) => ({ text: args.code, info: FENCE[args.language] }),
    },
    async execute(args, ctx): Promise<ToolOutcome> {
      if (!languages.includes(args.language)) {
        return {
          result: {
            ok: false,
            error: `${args.language} is not installed on this host (available: ${languages.join(', ') || 'none'}). Use another language.`,
          },
        };
      }
      // The run's enabled skills, each folder hashed again now: only what an admin approved is shown, read-only.
      const skills = await ctx.skills?.mounts();
      const { privateTo, ...result } = await runner.run({
        conversation: ctx.conversation,
        conversationId: ctx.conversationId,
        runId: ctx.runId,
        language: args.language,
        code: args.code,
        timeoutSeconds: args.timeout_seconds,
        signal: ctx.signal,
        readOnlyMounts: skills?.mounts.map((m) => ({ hostPath: m.hostPath, sandboxPath: m.sandboxPath })),
        // Whose files the call sees, and whether what it writes is private (DESIGN.md "Private stays private in a shared thread").
        principal: ctx.principal?.userId ?? ctx.userId,
        holdsPrivate: ctx.privacy?.privateTo != null,
        othersRead: ctx.privacy?.othersRead === true,
      });
      const notMounted =
        skills && skills.skipped.length > 0
          ? { skills_not_mounted: skills.skipped.map((s) => `${s.name}: ${s.reason}`) }
          : {};
      // A call that read or wrote its principal's private files is private like a private server's result.
      return {
        result: { ...result, ...notMounted } as unknown as ToolOutcome['result'],
        ...(privateTo ? { private: true } : {}),
      };
    },
  });
}
