import { z } from 'zod';
import type { Person } from '../../access/access-policy.js';
import type { ConversationRef } from '../../chat/conversation-ref.js';
import type { RunSkills } from '../run-skills.js';

/** What a tool knows about the run that called it. */
export interface ToolContext {
  readonly conversationId: string;
  readonly conversation: ConversationRef;
  readonly runId: string;
  /** The task this run works on. */
  readonly taskId: number | null;
  /** The run's principal's user id (mentioned in questions); null only for a run that names nobody. */
  readonly userId: string | null;
  /**
   * The person the run acts for (DESIGN.md "On whose behalf"), with their roles as of the request: every right a
   * tool checks (schedules, and later connections and memories) reads this, never whoever is in the thread.
   */
  readonly principal?: Person | null;
  /** The user's IANA timezone, else DEFAULT_TIMEZONE. */
  readonly timezone: string;
  /** The run descends from a scheduled prompt (it may not create schedules, so one prompt cannot multiply itself). */
  readonly scheduled?: boolean;
  /** Aborted when the run is stopped; long tool calls pass it on. */
  readonly signal?: AbortSignal;
  /** Where a long call says how far it got ("3/10 indexing", from MCP progress); set per call, absent: nobody listens. */
  readonly reportProgress?: (text: string) => void;
  /**
   * Stops the run's time limit (MAX_RUN_MINUTES) from counting while a person answers a question the tool asked
   * (an MCP server's form); the returned function lets it count again. Absent: the run has no such limit here.
   */
  readonly holdRunTime?: () => () => void;
  /**
   * Says the call waits for the run's principal to answer a question its server asked (true), or no longer (false),
   * so the status line and the call's step show who it waits for; set per call, absent: nobody listens.
   */
  readonly reportWaiting?: (waiting: boolean) => void;
  /**
   * The skills enabled in this run's channel and which of them the model follows (DESIGN.md "Skills"); a followed
   * skill's `allowed-tools` limits the tools offered. Absent: no skill is enabled here.
   */
  readonly skills?: RunSkills;
  /**
   * Where the run stands on private material as this call starts (DESIGN.md "Private stays private in a shared
   * thread"): whom it is private to (null: nobody yet) and whether others read the conversation. Set per call; absent:
   * the run holds nothing private.
   */
  readonly privacy?: { readonly privateTo: string | null; readonly othersRead: boolean };
  now(): number;
}

/** Arguments as an approval post shows them: the text, and the code block's language (`json`, `python`…). */
export interface ShownArguments {
  readonly text: string;
  readonly info: string;
}

/** A tool's answer to the model. Expected failures are `{ ok: false, error }`, never thrown. */
export type ToolResult = { ok: true; [key: string]: unknown } | { ok: false; error: string };

/** How the loop goes on after a control tool. */
export type ToolEffect =
  | { kind: 'update'; text: string }
  | { kind: 'ask'; question: string; options: string[] }
  | { kind: 'complete'; summary: string }
  /** The call did not run: the run's principal must connect `server` first, and the run waits for it. */
  | { kind: 'sign_in'; server: string };

export interface ToolOutcome {
  readonly result: ToolResult;
  readonly effect?: ToolEffect;
  /**
   * The result is the run's principal's alone: it came from their own sign-in (a server whose `visibility` is
   * private) or shows their `me` memories (DESIGN.md "Private stays private in a shared thread"). It never reaches
   * another person's run, and what the run writes from it is private too until they share it.
   */
  readonly private?: boolean;
  /** Long-term memories whose text the result shows (`recall`): a `forget` takes each out of the stored result. */
  readonly memoryIds?: readonly number[];
}

/** One tool the model can call; arguments are validated against `parameters` before `execute`. */
export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly parameters: S;
  /** Whether the tool is offered in this run (default: always). */
  availableIn?(context: ToolContext): boolean;
  /**
   * When a person must approve a call first (as for MCP tools: Allow once, Always allow here, Deny); absent: never.
   * `show` gives what the approval post shows of the arguments (e.g. the code itself, fenced in its language).
   */
  readonly approval?: {
    needed(context: ToolContext): boolean;
    show?(args: z.infer<S>): ShownArguments;
  };
  execute(args: z.infer<S>, context: ToolContext): Promise<ToolOutcome> | ToolOutcome;
}

/** Keeps the argument type attached to `execute` while collecting heterogeneous tools in one list. */
export function defineTool<S extends z.ZodType>(tool: ToolDefinition<S>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

/** Shorthands for tool results. */
export const ok = (fields: Record<string, unknown> = {}): ToolOutcome => ({ result: { ok: true, ...fields } });
export const fail = (error: string): ToolOutcome => ({ result: { ok: false, error } });
