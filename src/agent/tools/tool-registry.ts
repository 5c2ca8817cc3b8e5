import { z } from 'zod';
import type { StoredToolCall } from '../../db/schema.js';
import type { LlmTool } from '../llm-client.js';
import { fail, type ToolContext, type ToolDefinition, type ToolOutcome } from './tool.js';

/** The tools of a run: their JSON Schemas for the model, and validated execution. */
export interface ToolRegistry {
  readonly specs: LlmTool[];
  /** Parses and validates arguments, then runs the tool. Never throws for bad input: returns `{ ok:false }`. */
  execute(call: StoredToolCall, context: ToolContext): Promise<ToolOutcome>;
}

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return rest;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : 'arguments'}: ${i.message}`)
    .join('; ');
}

export function createToolRegistry(tools: readonly ToolDefinition[]): ToolRegistry {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const specs = tools.map((t) => ({ name: t.name, description: t.description, parameters: jsonSchemaOf(t.parameters) }));
  return {
    specs,
    async execute(call, context) {
      const tool = byName.get(call.name);
      if (!tool) return fail(`Unknown tool "${call.name}". Available tools: ${[...byName.keys()].join(', ')}.`);
      let raw: unknown;
      try {
        raw = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
      } catch {
        return fail(`The arguments for ${call.name} are not valid JSON. Send a JSON object matching its parameters.`);
      }
      const parsed = tool.parameters.safeParse(raw);
      if (!parsed.success) return fail(`Invalid arguments for ${call.name}: ${describeIssues(parsed.error)}. Fix them and call the tool again.`);
      try {
        return await tool.execute(parsed.data, context);
      } catch (err) {
        return fail(`${call.name} failed unexpectedly: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
  };
}
