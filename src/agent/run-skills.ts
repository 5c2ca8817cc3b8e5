import type { ConversationRef } from '../chat/conversation-ref.js';
import type { TranscriptStore } from '../conversations/transcript-store.js';
import type { EnabledSkill } from '../skills/skill-enablement.js';
import type { SkillPinRow } from '../skills/skill-pin-store.js';
import type { SkillLibrary } from '../skills/skill-library.js';
import type { SkillMountPlan, SkillMounts } from '../skills/skill-mounts.js';
import type { LoadedSkill } from '../skills/skill-scan.js';
import { skillsSection } from './skills-prompt.js';

/**
 * Tools a skill's `allowed-tools` never takes away: the run's control tools (DESIGN.md's tools table) and the skill
 * tools themselves, so a run that follows a skill can still report, ask, finish and read the skill's files.
 */
export const ALWAYS_OFFERED: ReadonlySet<string> = new Set([
  'send_update',
  'ask_user',
  'task_complete',
  'use_skill',
  'read_skill_file',
]);

/**
 * The skills of one run: those enabled in its channel (pinned, folder unchanged), the system prompt's section that
 * lists them, and which of them the model is following. Following a skill that has `allowed-tools` narrows the tools
 * offered from that call on, for the rest of the run: each such skill followed narrows further (the offered tools
 * are those every followed skill allows, plus ALWAYS_OFFERED); a skill without `allowed-tools` narrows nothing and
 * never widens what an earlier one narrowed. A new run starts with every tool.
 */
export interface RunSkills {
  /** Enabled in this run, in the order the prompt lists them (the channel's own first). */
  readonly enabled: readonly EnabledSkill[];
  /** The system prompt's section (names and descriptions within SKILLS_TOKEN_BUDGET); '' when the budget is 0. */
  readonly prompt: string;
  /** An enabled skill by name, or null. */
  get(name: string): LoadedSkill | null;
  /** The model follows this skill from now on (use_skill): its `allowed-tools`, if any, narrow the run's tools. */
  follow(name: string): void;
  /** The skills followed so far in this run, in order. */
  followed(): readonly string[];
  /** Whether the tool may be offered and run now. */
  offers(tool: string): boolean;
  /** Why a tool is not offered now (the skills whose allowed-tools leave it out), for the model. */
  refusal(tool: string): string;
  /** Whether this installation has a sandbox that runs `run_code` (skills' scripts run nowhere else). */
  sandbox(): boolean;
  /** The read-only mounts a `run_code` call of this run gets (DESIGN.md "Skills"): every enabled skill's folder, if still as pinned. */
  mounts(): Promise<SkillMountPlan>;
}

/** An `allowed-tools` entry matches a tool by its exact name, or by a prefix when it ends in `*` (`github__*`). */
function allows(patterns: readonly string[], tool: string): boolean {
  return patterns.some((p) => (p.endsWith('*') ? tool.startsWith(p.slice(0, -1)) : p === tool));
}

/** Builds one run's skills. `sandbox`: whether a sandbox that runs `run_code` is available in this installation. */
export function createRunSkills(
  enabled: readonly EnabledSkill[],
  prompt: string,
  mounts: SkillMounts,
  sandbox: () => boolean,
): RunSkills {
  const byName = new Map(enabled.map((e) => [e.skill.name, e.skill]));
  const followed: string[] = [];
  /** Each followed skill's allowed-tools; the run offers what all of them allow. */
  const limits: { skill: string; patterns: readonly string[] }[] = [];
  const run: RunSkills = {
    enabled,
    prompt,
    get: (name) => byName.get(name) ?? null,
    follow(name) {
      const skill = byName.get(name);
      if (!skill || followed.includes(name)) return;
      followed.push(name);
      if (skill.manifest.allowedTools !== null) limits.push({ skill: name, patterns: skill.manifest.allowedTools });
    },
    followed: () => followed,
    offers: (tool) => ALWAYS_OFFERED.has(tool) || limits.every((l) => allows(l.patterns, tool)),
    refusal(tool) {
      const by = limits
        .filter((l) => !allows(l.patterns, tool))
        .map((l) => `${l.skill} (allowed-tools: ${l.patterns.join(' ') || 'none'})`);
      return `"${tool}" is not offered while you follow ${by.join(' and ')}: use the tools that skill allows, or finish with task_complete and say what else is needed.`;
    },
    sandbox,
    mounts: () => mounts.plan(enabled.map((e) => e.skill)),
  };
  return run;
}

type TranscriptRows = Awaited<ReturnType<TranscriptStore['recent']>>;

/** The skills a run followed before it was interrupted or parked: its successful use_skill calls, in order. */
export function followedInTranscript(rows: TranscriptRows, runId: string): string[] {
  const asked = new Map<string, string>();
  const followed: string[] = [];
  for (const row of rows) {
    if (row.runId !== runId) continue;
    if (row.role === 'assistant') {
      for (const call of row.toolCalls ?? []) {
        if (call.name !== 'use_skill') continue;
        try {
          const name = (JSON.parse(call.arguments) as { name?: unknown }).name;
          if (typeof name === 'string') asked.set(call.id, name);
        } catch {
          // a call with broken arguments was refused; it followed nothing
        }
      }
    } else if (row.role === 'tool' && row.toolCallId && asked.has(row.toolCallId)) {
      try {
        if ((JSON.parse(row.content ?? '') as { ok?: unknown }).ok === true) followed.push(asked.get(row.toolCallId)!);
      } catch {
        // not a result of ours
      }
    }
  }
  return followed;
}

/** What the launcher tells about the run whose skills it wants. */
export interface RunSkillsRequest {
  readonly conversation: ConversationRef;
  readonly conversationId: string;
  readonly runId: string;
  /** The run has steps already (restarted, or resumed after a question): the skills it followed are read back. */
  readonly resumed: boolean;
  readonly transcript: Pick<TranscriptStore, 'recent'>;
  /** The skill pins, when the launcher read them already (with the run's context, in one statement); absent: read here. */
  readonly pins?: readonly SkillPinRow[];
}

/** Where each run gets its skills (absent from a run when none is enabled in its channel). */
export interface RunSkillsSource {
  forRun(request: RunSkillsRequest): Promise<RunSkills | null>;
}

/** Rows read back to find the skills a resumed run followed. */
const RESUME_ROWS = 400;

export interface RunSkillsSourceDeps {
  readonly library: Pick<SkillLibrary, 'enabledFor'>;
  readonly mounts: SkillMounts;
  /** SKILLS_TOKEN_BUDGET. */
  readonly tokenBudget: number;
  /** Whether a sandbox that runs `run_code` is available; absent: none, and skills' scripts cannot run. */
  readonly sandboxAvailable?: () => boolean;
}

/** Each run's skills: one read of the pins, then what was loaded at start-up (no file is read per run). */
export function createRunSkillsSource(deps: RunSkillsSourceDeps): RunSkillsSource {
  const sandbox = deps.sandboxAvailable ?? (() => false);
  return {
    async forRun(request) {
      const enabled = await deps.library.enabledFor(request.conversation, request.pins);
      if (enabled.length === 0) return null;
      const run = createRunSkills(enabled, skillsSection(enabled, deps.tokenBudget), deps.mounts, sandbox);
      if (request.resumed)
        for (const name of followedInTranscript(
          await request.transcript.recent(request.conversationId, RESUME_ROWS),
          request.runId,
        ))
          run.follow(name);
      return run;
    },
  };
}
