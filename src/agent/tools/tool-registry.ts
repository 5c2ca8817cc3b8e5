import { z } from 'zod';
import type { StoredToolCall } from '../../records/stored-values.js';
import type { LlmTool } from '../llm-client.js';
import { isSignInNeeded, type ExternalTool, type ExternalToolSource } from './external-tool.js';
import { fail, type ShownArguments, type ToolContext, type ToolDefinition, type ToolOutcome } from './tool.js';

/** A call that waits for a person's approval: the tool's name (what "Always allow here" remembers) and its arguments as shown. */
export interface ApprovalGate {
  readonly name: string;
  readonly shown?: ShownArguments;
}

/** The tools of a run: their JSON Schemas for the model, and validated execution. */
export interface ToolRegistry {
  /** What the model is offered in this run now (external tools can change between steps). */
  specsFor(context: ToolContext): LlmTool[];
  /** The tool a call names when a person must approve it first (and how its arguments are shown), else null. */
  approvalNeeded(call: StoredToolCall, context: ToolContext): ApprovalGate | null;
  /** Parses and validates arguments, then runs the tool. Never throws for bad input: returns `{ ok:false }`. */
  execute(call: StoredToolCall, context: ToolContext): Promise<ToolOutcome>;
  /** Whether what the call's tool says while it runs and returns is private to the run's principal (a private server's tool). */
  privateSource(call: StoredToolCall, context: ToolContext): boolean;
}

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return rest;
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : 'arguments'}: ${i.message}`).join('; ');
}

function parseArguments(call: StoredToolCall): { ok: true; value: unknown } | { ok: false; outcome: ToolOutcome } {
  try {
    return { ok: true, value: call.arguments.trim() === '' ? {} : JSON.parse(call.arguments) };
  } catch {
    return {
      ok: false,
      outcome: fail(`The arguments for ${call.name} are not valid JSON. Send a JSON object matching its parameters.`),
    };
  }
}

const externalSpecs = new WeakMap<ExternalTool, LlmTool>();

function specOfExternal(tool: ExternalTool): LlmTool {
  let spec = externalSpecs.get(tool);
  if (!spec) {
    spec = { name: tool.name, description: tool.description, parameters: tool.inputSchema };
    externalSpecs.set(tool, spec);
  }
  return spec;
}

/**
 * Errand's own tools (zod-validated) plus, when given, tools from an external source such as MCP
 * servers. Built once per app: schemas are converted once, and per-run filtering is a cheap pass.
 */
export function createToolRegistry(tools: readonly ToolDefinition[], external?: ExternalToolSource): ToolRegistry {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const specs = tools.map((t) => ({
    tool: t,
    spec: { name: t.name, description: t.description, parameters: jsonSchemaOf(t.parameters) },
  }));
  // A skill the run follows may limit its tools (`allowed-tools`): what it leaves out is neither offered nor run.
  const allowedBySkills = (name: string, context: ToolContext) => context.skills?.offers(name) ?? true;
  const available = (t: ToolDefinition, context: ToolContext) =>
    (t.availableIn?.(context) ?? true) && allowedBySkills(t.name, context);
  const externalFor = (context: ToolContext) => (external ? external.toolsFor(context.conversation) : []);
  const findExternal = (name: string, context: ToolContext) =>
    externalFor(context).find((t) => t.name === name) ?? null;

  return {
    specsFor(context) {
      const own = specs.filter((s) => available(s.tool, context)).map((s) => s.spec);
      const extra = externalFor(context)
        .filter((t) => !byName.has(t.name) && allowedBySkills(t.name, context))
        .map(specOfExternal);
      return extra.length > 0 ? [...own, ...extra] : own;
    },
    approvalNeeded(call, context) {
      if (!allowedBySkills(call.name, context)) return null;
      const own = byName.get(call.name);
      if (own) {
        if (!own.approval?.needed(context) || !available(own, context)) return null;
        const args = parseArguments(call);
        const parsed = args.ok ? own.parameters.safeParse(args.value) : null;
        // Arguments that do not parse are refused by `execute` with the reason: nothing to approve.
        if (!parsed?.success) return null;
        const shown = own.approval.show?.(parsed.data);
        return shown ? { name: own.name, shown } : { name: own.name };
      }
      const tool = findExternal(call.name, context);
      return tool?.needsApproval ? tool : null;
    },
    privateSource(call, context) {
      return !byName.has(call.name) && findExternal(call.name, context)?.privateResults === true;
    },
    async execute(call, context) {
      const tool = byName.get(call.name);
      const args = parseArguments(call);
      if (!allowedBySkills(call.name, context) && (tool || findExternal(call.name, context)))
        return fail(context.skills!.refusal(call.name));
      if (!tool || !available(tool, context)) {
        const outside = tool ? null : findExternal(call.name, context);
        if (outside) return executeExternal(outside, call, args, context);
        const names = [...this.specsFor(context).map((s) => s.name)].join(', ');
        const why = tool ? `"${call.name}" is not available in this run` : `Unknown tool "${call.name}"`;
        return fail(`${why}. Available tools: ${names}.`);
      }
      if (!args.ok) return args.outcome;
      const parsed = tool.parameters.safeParse(args.value);
      if (!parsed.success)
        return fail(
          `Invalid arguments for ${call.name}: ${describeIssues(parsed.error)}. Fix them and call the tool again.`,
        );
      try {
        return await tool.execute(parsed.data, context);
      } catch (err) {
        return fail(`${call.name} failed unexpectedly: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
  };
}

async function executeExternal(
  tool: ExternalTool,
  call: StoredToolCall,
  args: ReturnType<typeof parseArguments>,
  context: ToolContext,
): Promise<ToolOutcome> {
  if (!args.ok) return args.outcome;
  if (args.value === null || typeof args.value !== 'object' || Array.isArray(args.value)) {
    return fail(`The arguments for ${call.name} must be a JSON object matching its input schema.`);
  }
  try {
    const result = await tool.call(
      args.value as Record<string, unknown>,
      context,
      context.signal ?? new AbortController().signal,
    );
    if (isSignInNeeded(result))
      return { result: { ok: false, error: result.error }, effect: { kind: 'sign_in', server: result.signIn.server } };
    return tool.privateResults === true ? { result, private: true } : { result };
  } catch (err) {
    return fail(`${call.name} failed unexpectedly: ${err instanceof Error ? err.message : String(err)}`);
  }
}
