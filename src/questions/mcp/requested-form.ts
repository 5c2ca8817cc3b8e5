import { z } from 'zod';
import type { ElicitationField, ElicitationOption } from '../../chat/elicitation-form.js';

/**
 * What a server's `elicitation/create` asks for, read from its raw params (MCP 2025-11-25): a form built
 * from the requested schema, a URL to visit, or a form Errand cannot draw (a nested object, an unknown
 * type) with the reason, so it is declined with that reason rather than shown half. Read here rather than
 * through the SDK's own request schema, which rejects such a form before anyone could tell the thread.
 */
export type RequestedElicitation =
  | { readonly mode: 'form'; readonly message: string; readonly fields: readonly ElicitationField[] }
  | { readonly mode: 'url'; readonly message: string; readonly url: string; readonly elicitationId: string }
  | { readonly mode: 'unsupported'; readonly message: string; readonly reason: string };

const text = z.string();
const num = z.number().finite();
const titled = z.array(z.object({ const: z.string(), title: z.string() }));

const paramsSchema = z.object({
  mode: z.enum(['form', 'url']).optional(),
  message: z.string(),
  requestedSchema: z
    .object({
      type: z.literal('object'),
      properties: z.record(z.string(), z.unknown()).default({}),
      required: z.array(z.string()).optional(),
    })
    .optional(),
  url: z.string().optional(),
  elicitationId: z.string().optional(),
});

const propertySchema = z.object({
  type: z.unknown(),
  title: text.optional(),
  description: text.optional(),
  format: text.optional(),
  minLength: num.optional(),
  maxLength: num.optional(),
  minimum: num.optional(),
  maximum: num.optional(),
  minItems: num.optional(),
  maxItems: num.optional(),
  enum: z.array(z.string()).optional(),
  enumNames: z.array(z.string()).optional(),
  oneOf: titled.optional(),
  items: z
    .object({ type: z.unknown().optional(), enum: z.array(z.string()).optional(), anyOf: titled.optional() })
    .optional(),
  default: z.unknown().optional(),
});

const FORMATS = ['email', 'uri', 'date', 'date-time'] as const;
type Format = (typeof FORMATS)[number];

/** Thrown for params that are not an elicitation request at all (answered to the server as invalid params). */
export class MalformedElicitation extends Error {}

/** Reads the raw params of an `elicitation/create` request. Throws MalformedElicitation when they are not one. */
export function readRequestedElicitation(raw: unknown): RequestedElicitation {
  const parsed = paramsSchema.safeParse(raw);
  if (!parsed.success)
    throw new MalformedElicitation(
      `not an elicitation request: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'params'}: ${i.message}`).join('; ')}`,
    );
  const p = parsed.data;
  if (p.mode === 'url') {
    if (!p.url || !p.elicitationId) throw new MalformedElicitation('a URL elicitation needs url and elicitationId');
    let url: URL;
    try {
      url = new URL(p.url);
    } catch {
      throw new MalformedElicitation(`"${p.url}" is not a URL`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      return { mode: 'unsupported', message: p.message, reason: `the link is not a web address (${url.protocol})` };
    return { mode: 'url', message: p.message, url: url.toString(), elicitationId: p.elicitationId };
  }
  if (!p.requestedSchema) throw new MalformedElicitation('a form elicitation needs requestedSchema');
  const required = new Set(p.requestedSchema.required ?? []);
  const fields: ElicitationField[] = [];
  for (const [name, schema] of Object.entries(p.requestedSchema.properties)) {
    const field = readField(name, schema, required.has(name));
    if (typeof field === 'string') return { mode: 'unsupported', message: p.message, reason: field };
    fields.push(field);
  }
  return { mode: 'form', message: p.message, fields };
}

/** One property as a field, or why Errand cannot show it. */
function readField(name: string, raw: unknown, required: boolean): ElicitationField | string {
  const parsed = propertySchema.safeParse(raw);
  if (!parsed.success) return `the field "${name}" is not a flat field Errand can show`;
  const s = parsed.data;
  const base = { name, label: s.title ?? name, description: s.description ?? null, required };
  const d = s.default;
  switch (s.type) {
    case 'string': {
      const options =
        s.oneOf?.map((o) => ({ value: o.const, label: o.title })) ??
        s.enum?.map((value, i) => ({ value, label: s.enumNames?.[i] ?? value }));
      if (options) {
        if (options.length === 0) return `the field "${name}" offers no choices`;
        return {
          ...base,
          kind: 'choice',
          options,
          initial: typeof d === 'string' && options.some((o) => o.value === d) ? d : null,
        };
      }
      const format = FORMATS.includes(s.format as Format) ? (s.format as Format) : null;
      return {
        ...base,
        kind: 'text',
        format,
        minLength: s.minLength ?? null,
        maxLength: s.maxLength ?? null,
        initial: typeof d === 'string' ? d : null,
      };
    }
    case 'number':
    case 'integer':
      return {
        ...base,
        kind: 'number',
        integer: s.type === 'integer',
        minimum: s.minimum ?? null,
        maximum: s.maximum ?? null,
        initial: typeof d === 'number' ? d : null,
      };
    case 'boolean':
      return { ...base, kind: 'boolean', initial: typeof d === 'boolean' ? d : null };
    case 'array': {
      const items = s.items;
      const options: ElicitationOption[] | undefined =
        items?.anyOf?.map((o) => ({ value: o.const, label: o.title })) ??
        items?.enum?.map((value) => ({ value, label: value }));
      if (!options || options.length === 0)
        return `the field "${name}" is a list of something other than fixed choices`;
      const initial = Array.isArray(d)
        ? d.filter((v): v is string => typeof v === 'string' && options.some((o) => o.value === v))
        : null;
      return { ...base, kind: 'multi', options, minItems: s.minItems ?? null, maxItems: s.maxItems ?? null, initial };
    }
    case 'object':
      return `the field "${name}" is a nested object (a form takes only flat fields)`;
    default:
      return `the field "${name}" has a type Errand cannot show (${JSON.stringify(s.type) ?? 'none'})`;
  }
}
